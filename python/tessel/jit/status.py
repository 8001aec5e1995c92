"""Refusals of a configuration, worded as tessel's C++ StatusInfo::what() words them
("Error Not Supported: ..."), with the Status enumerator's name as .status, like tessel.GemmError.

Standard library only (see config.py).
"""

_TEXT = {
    "kErrorInvalidDataType": "Error Invalid Data Type",
    "kErrorInvalidLayout": "Error Invalid Layout",
    "kErrorInvalidProblem": "Error Invalid Problem",
    "kErrorNotSupported": "Error Not Supported",
    "kErrorArchMismatch": "Error Architecture Mismatch",
    "kErrorMisalignedOperand": "Error Misaligned Operand",
}


class ConfigError(ValueError):
    """A GemmConfig no kernel family can build; `.status` names the tessel Status."""

    def __init__(self, status: str, message: str):
        super().__init__(f"{_TEXT[status]}: {message}")
        self.status = status


class ConfigTypeError(ConfigError, TypeError):
    """A GemmConfig field of the wrong type (a float tile, a string stage count): a TypeError,
    and a ConfigError like every other refusal of a configuration."""


def refuse(status: str, message: str):
    raise ConfigError(status, message)


def refuse_type(message: str):
    raise ConfigTypeError("kErrorNotSupported", message)


def is_integer(value) -> bool:
    """An int, or numpy's integers (anything with __index__); not a bool, numpy's included. A
    float or a string is no integer either: 128.5 is no tile size, and '128' is text."""
    is_bool = isinstance(value, bool) or type(value).__name__ in ("bool_", "bool")
    return not is_bool and hasattr(type(value), "__index__")


def integer(value, what: str, expected: str = "an integer") -> int:
    """value as an int when it is_integer(), else a ConfigTypeError naming the field."""
    if not is_integer(value):
        refuse_type(f"{what} must be {expected}, not {type(value).__name__} {value!r}")
    return value.__index__()

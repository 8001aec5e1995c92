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
}


class ConfigError(ValueError):
    """A GemmConfig no kernel family can build; `.status` names the tessel Status."""

    def __init__(self, status: str, message: str):
        super().__init__(f"{_TEXT[status]}: {message}")
        self.status = status


def refuse(status: str, message: str):
    raise ConfigError(status, message)

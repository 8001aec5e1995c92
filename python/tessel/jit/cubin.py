"""What a cubin holds, read from its ELF header and symbol table: the SASS architecture and the
names of the kernels. Used to name the kernel of a prebuilt cubin (nvcc gives no lowered name)
and by the tests to check what NVRTC produced. Standard library only (see config.py).
"""

from __future__ import annotations

import struct

_EM_CUDA = 190
_SHT_SYMTAB = 2
_STT_FUNC = 2
_STO_CUDA_ENTRY = 0x10


def _header(data: bytes):
    if len(data) < 64 or data[:4] != b"\x7fELF":
        raise ValueError("not an ELF file (a cubin is one)")
    if data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    machine, = struct.unpack_from("<H", data, 18)
    if machine != _EM_CUDA:
        raise ValueError(f"ELF machine {machine} is not CUDA ({_EM_CUDA})")
    return data[8], struct.unpack_from("<QIHHHHHH", data, 40)  # ABI version, (shoff, flags, ...)


def sm_version(data: bytes) -> int:
    """The SASS architecture a cubin is for, as a number: 80 for sm_80, 90 for sm_90 and sm_90a.

    The ELF flags encode it, in the low byte before ELF ABI version 8 (CUDA 12.8) and in bits 8-15
    from then on. (Whether an sm_90 cubin is the arch-specific sm_90a one is not recorded there
    unless the code uses arch-specific instructions, so this reads the number only.)
    """
    abi, (_, flags, *_rest) = _header(data)
    return (flags >> 8) & 0xFF if abi >= 8 else flags & 0xFF


def functions(data: bytes) -> list[str]:
    """Names of the kernels (entry points) in the cubin's symbol table."""
    _, (shoff, _flags, _ehsize, _phentsize, _phnum, shentsize, shnum, _shstrndx) = _header(data)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = []
    for sh_name, sh_type, _f, _a, offset, size, link, _info, _align, entsize in sections:
        if sh_type != _SHT_SYMTAB:
            continue
        strtab = sections[link]
        str_off, str_size = strtab[4], strtab[5]
        for pos in range(offset, offset + size, entsize or 24):
            st_name, st_info, st_other = struct.unpack_from("<IBB", data, pos)
            # A kernel (an entry point) carries STO_CUDA_ENTRY; device functions the compiler
            # adds (a division slow path, say) are functions too, without it.
            if st_info & 0xF == _STT_FUNC and st_other & _STO_CUDA_ENTRY and st_name:
                end = data.index(b"\0", str_off + st_name, str_off + str_size)
                names.append(data[str_off + st_name:end].decode())
    return names


def kernel_symbol(data: bytes, prefix: str) -> str:
    """The one function whose name starts with `prefix`."""
    found = [n for n in functions(data) if n.startswith(prefix)]
    if len(found) != 1:
        raise ValueError(f"expected one kernel named {prefix}... in the cubin, found {found}")
    return found[0]

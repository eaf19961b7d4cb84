"""Byte-level damage: what a bad download, a full disk or a wrong file does to a model.

Each mutation takes the model bytes and a seeded random source and returns
(damaged bytes, description).
"""
from __future__ import annotations

import random
import struct

OUT_OF_RANGE = [0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFC]


def truncated(data: bytes, rng: random.Random):
    cut = rng.choice([0, 3, 4, 7, 8, 12, 16, rng.randrange(len(data)), len(data) // 2, len(data) - 1])
    return data[:cut], f"truncated to {cut} bytes"


def bits_flipped(data: bytes, rng: random.Random):
    out = bytearray(data)
    count = rng.choice([1, 1, 2, 4, 16, 64])
    for _ in range(count):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out), f"{count} bits flipped"


def bytes_randomized(data: bytes, rng: random.Random):
    out = bytearray(data)
    start = rng.randrange(len(out))
    length = min(rng.choice([1, 4, 16, 256]), len(out) - start)
    out[start:start + length] = bytes(rng.randrange(256) for _ in range(length))
    return bytes(out), f"{length} random bytes at {start}"


def _word_positions(data: bytes) -> int:
    return max(len(data) // 4, 1)


def offset_out_of_range(data: bytes, rng: random.Random):
    """A 32-bit word (flatbuffer offsets, vtable entries, vector lengths) pointing outside the file."""
    out = bytearray(data)
    position = 0 if rng.random() < 0.1 else 4 * rng.randrange(_word_positions(data))
    value = rng.choice(OUT_OF_RANGE + [len(data), len(data) + 4, len(data) * 2, rng.randrange(1 << 32)])
    out[position:position + 4] = struct.pack("<I", value & 0xFFFFFFFF)
    return bytes(out[:len(data)]), f"word at {position} -> {value:#x}"


def small_offset_shift(data: bytes, rng: random.Random):
    """A word nudged by a few bytes: offsets that still land inside the file, on the wrong thing."""
    out = bytearray(data)
    position = 4 * rng.randrange(_word_positions(data))
    if position + 4 > len(out):
        return data[:-1], "last byte dropped"
    word = struct.unpack_from("<I", out, position)[0]
    value = (word + rng.choice([-8, -4, -2, -1, 1, 2, 4, 8, 64])) & 0xFFFFFFFF
    struct.pack_into("<I", out, position, value)
    return bytes(out), f"word at {position} {word:#x} -> {value:#x}"


def vtable_entry(data: bytes, rng: random.Random):
    """A 16-bit word (vtable field offsets, table sizes) set to a large value."""
    out = bytearray(data)
    position = 2 * rng.randrange(max(len(data) // 2, 1))
    value = rng.choice([0xFFFF, 0x8000, 0x7FFF, 0, 4])
    out[position:position + 2] = struct.pack("<H", value)
    return bytes(out[:len(data)]), f"half-word at {position} -> {value:#x}"


def chunk_removed_or_duplicated(data: bytes, rng: random.Random):
    start = rng.randrange(len(data))
    length = rng.choice([1, 4, 16, 100])
    if rng.random() < 0.5:
        return data[:start] + data[start + length:], f"{length} bytes removed at {start}"
    return data[:start] + data[start:start + length] + data[start:], f"{length} bytes duplicated at {start}"


def zeroed_region(data: bytes, rng: random.Random):
    start = rng.randrange(len(data))
    length = rng.choice([4, 32, 512, len(data)])
    out = bytearray(data)
    out[start:start + length] = bytes(min(length, len(data) - start))
    return bytes(out), f"{length} bytes zeroed at {start}"


def identifier_or_header(data: bytes, rng: random.Random):
    choice = rng.randrange(3)
    if choice == 0:
        return data[:4] + b"TFL2" + data[8:], "file identifier TFL2"
    if choice == 1:
        return b"", "empty file"
    return b"\x08\x00\x00\x00TFL3" + bytes(rng.randrange(256) for _ in range(rng.randrange(0, 64))), "header and junk"


MUTATIONS = [
    truncated, bits_flipped, bytes_randomized, offset_out_of_range, small_offset_shift, vtable_entry,
    chunk_removed_or_duplicated, zeroed_region, identifier_or_header,
]

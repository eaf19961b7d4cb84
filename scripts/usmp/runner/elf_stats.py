"""Where the bytes of a linked bare-metal image go, read from the linker's map file.

The map records every input section the linker kept (after --gc-sections),
its size and the object file it came from, so flash and RAM can be split by
origin: the generated library, the constant pools, the kernel library, and
the harness (start-up code, test harness, C library). A member of a C
library archive (libgcc's 64-bit multiply, newlib's stdio) counts with
the part whose object first required it, as the map's archive section
records; the kernel archive's members count as kernels. Padding between input sections is counted with the harness, so the
parts add up to the totals.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

FLASH_PARTS = ("generated_code", "kernels", "constants", "harness")

# Sections the linker keeps in the ELF but that never reach the chip (address 0).
_NOT_ALLOCATED = (".debug", ".comment", ".ARM.attributes", ".stab", ".gnu.attributes", ".note")
_LOADED = (".data", ".tdata")  # RAM sections whose initial values the image carries in flash
_OUTPUT_SECTION = re.compile(
    r"^(\.\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)(?:\s+load address 0x([0-9a-f]+))?\s*$")
_INPUT_SECTION = re.compile(r"^ (\.\S+|COMMON)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")
_INPUT_NAME_ONLY = re.compile(r"^ (\.\S+|COMMON)\s*$")
_INPUT_CONTINUED = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$")


@dataclass
class OutputSection:
    name: str
    address: int
    size: int
    load_address: int
    inputs: list[tuple[str, int, str]] = field(default_factory=list)  # (input section, size, object)


@dataclass
class ImageUsage:
    """Bytes of flash and of statically allocated RAM, by part."""

    flash_total: int
    flash_parts: dict[str, int]
    ram_static: int  # .data + .bss: everything the linker placed in RAM
    ram_parts: dict[str, int]


def parse_map(text: str) -> list[OutputSection]:
    """The output sections of a GNU ld map file, with their input sections."""
    body = text.split("Linker script and memory map", 1)[-1]
    sections: list[OutputSection] = []
    current: OutputSection | None = None
    pending_name: str | None = None
    for line in body.splitlines():
        match = _OUTPUT_SECTION.match(line)
        if match:
            address, size = int(match.group(2), 16), int(match.group(3), 16)
            load = int(match.group(4), 16) if match.group(4) else address
            current = OutputSection(match.group(1), address, size, load)
            sections.append(current)
            pending_name = None
            continue
        if current is None:
            continue
        match = _INPUT_SECTION.match(line)
        if match:
            current.inputs.append((match.group(1), int(match.group(3), 16), match.group(4).strip()))
            pending_name = None
            continue
        match = _INPUT_NAME_ONLY.match(line)
        if match:
            pending_name = match.group(1)
            continue
        match = _INPUT_CONTINUED.match(line)
        if match and pending_name is not None:
            current.inputs.append((pending_name, int(match.group(2), 16), match.group(3).strip()))
        pending_name = None
    return sections


def image_usage(sections: list[OutputSection], part_of_object, flash_range: tuple[int, int],
                ram_range: tuple[int, int]) -> ImageUsage:
    """Split flash and static RAM by part; part_of_object(object path) names the part."""
    def inside(address: int, span: tuple[int, int]) -> bool:
        return span[0] <= address < span[0] + span[1]

    flash_parts = dict.fromkeys(FLASH_PARTS, 0)
    ram_parts = dict.fromkeys(FLASH_PARTS, 0)
    flash_end = flash_range[0]
    ram_static = 0
    for section in sections:
        if section.size == 0 or section.name.startswith(_NOT_ALLOCATED):
            continue
        in_ram = inside(section.address, ram_range)
        # Our linker scripts load only .data (and RISC-V's .tdata) from flash into RAM; .bss is NOLOAD.
        loaded_to_flash = inside(section.address, flash_range) or (in_ram and section.name in _LOADED)
        if not in_ram and not inside(section.address, flash_range):
            continue  # debug information and other non-allocated sections
        if loaded_to_flash:
            flash_end = max(flash_end, section.load_address + section.size)
        if in_ram:
            ram_static += section.size
        for _, size, obj in section.inputs:
            part = part_of_object(obj)
            if loaded_to_flash:
                flash_parts[part] += size
            if in_ram:
                ram_parts[part] += size
    flash_total = flash_end - flash_range[0]
    flash_parts["harness"] += flash_total - sum(flash_parts.values())  # alignment padding
    ram_parts["harness"] += ram_static - sum(ram_parts.values())
    return ImageUsage(flash_total, flash_parts, ram_static, ram_parts)


def archive_referrers(text: str) -> dict[str, str]:
    """Archive member -> the file whose reference pulled it into the link."""
    head = text.split("Linker script and memory map", 1)[0]
    head = head.split("Archive member included to satisfy reference by file (symbol)", 1)[-1]
    for end in ("\nAllocating common symbols", "\nDiscarded input sections", "\nMemory Configuration"):
        head = head.split(end, 1)[0]
    referrers: dict[str, str] = {}
    member = None
    for line in head.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            parts = line.split()
            member = parts[0]
            if len(parts) >= 2:  # member and referrer on one line
                referrers[member] = parts[1]
                member = None
        elif member is not None:
            referrers[member] = line.split()[0]
            member = None
    return referrers


def read_image_usage(map_path: Path, part_of_object, flash_range, ram_range) -> ImageUsage:
    text = Path(map_path).read_text()
    referrers = archive_referrers(text)

    def part_of(obj: str) -> str:
        """An object of ours names its part; a C-library member takes that of whoever needed it."""
        seen = set()
        while part_of_object(obj) == "harness" and obj in referrers and obj not in seen:
            seen.add(obj)
            obj = referrers[obj]
        return part_of_object(obj)

    return image_usage(parse_map(text), part_of, flash_range, ram_range)

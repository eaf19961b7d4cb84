"""Pool wait states and I/O engines from Kconfig and the devicetree (issue 34): CONFIG_USMP_POOL<n>_WAIT, or
the memory's default (its wait-states property, 0 for a TCM and RAM, CONFIG_USMP_FLASH_WAIT_STATES for flash),
CONFIG_USMP_POOL<n>_TARGETS, CONFIG_USMP_IO_TARGETS and CONFIG_USMP_PLACEMENT_*."""
import pytest

from usmp.errors import UsmpError
from usmp.zephyr.devicetree import parse_dts
from usmp.zephyr.dotconfig import parse_config_text
from usmp.zephyr.kconfig_pools import settings_from_config
from usmp.zephyr.placement import place_pools

BOARD = """/dts-v1/;
/ {
	#address-cells = <1>;
	#size-cells = <1>;
	chosen {
		zephyr,flash = &flash0;
		zephyr,sram = &sram0;
	};
	flash0: flash@0 { compatible = "soc-nv-flash"; reg = <0x0 0x100000>; };
	slowflash: flash@8000000 { compatible = "soc-nv-flash"; reg = <0x8000000 0x100000>; wait-states = <5>;
		zephyr,memory-region = "SLOWFLASH"; };
	sram0: memory@20000000 { compatible = "mmio-sram"; reg = <0x20000000 0x10000>; };
	dtcm: dtcm@30000000 { compatible = "zephyr,memory-region"; reg = <0x30000000 0x4000>;
		zephyr,memory-region = "DTCM"; };
};
"""


def pools(text: str):
    settings = settings_from_config(parse_config_text("CONFIG_USMP=y\n" + text, "prj.conf"))
    return settings, {p.name: p for p in place_pools(settings.pools, parse_dts(BOARD))}


def test_waits_come_from_the_devicetree_unless_kconfig_gives_them():
    settings, placed = pools(
        'CONFIG_USMP_FLASH_WAIT_STATES=3\n'
        'CONFIG_USMP_POOL2=y\nCONFIG_USMP_POOL2_NAME="fast"\nCONFIG_USMP_POOL2_REGION="dtcm"\n'
        'CONFIG_USMP_POOL3=y\nCONFIG_USMP_POOL3_NAME="slow"\nCONFIG_USMP_POOL3_KIND_CONSTANT=y\n'
        'CONFIG_USMP_POOL3_REGION="slowflash"\n')
    assert placed["fast"].wait == 0  # a TCM
    assert placed["workspace"].wait == 0  # the chosen zephyr,sram: RAM
    assert placed["constants"].wait == 3  # the chosen zephyr,flash, which does not say: the Kconfig value
    assert placed["slow"].wait == 5  # its node says wait-states = <5>
    assert settings.placement == "demand" and settings.io_targets == ()
    _, placed = pools('CONFIG_USMP_POOL1_WAIT=1\nCONFIG_USMP_POOL0_WAIT=2\n')
    assert (placed["constants"].wait, placed["workspace"].wait) == (1, 2)


def test_io_targets_pool_targets_and_placement_order():
    settings, placed = pools('CONFIG_USMP_IO_TARGETS="dma"\nCONFIG_USMP_PLACEMENT_ORDER=y\n'
                             'CONFIG_USMP_POOL0_TARGETS="c+dma"\n')
    assert settings.io_targets == ("dma",) and settings.placement == "order"
    assert placed["workspace"].targets == ("c", "dma") and placed["constants"].targets == ("c",)


@pytest.mark.parametrize("text, message", [
    ('CONFIG_USMP_IO_TARGETS="dma engine"\n', "CONFIG_USMP_IO_TARGETS=\"dma engine\": 'dma engine' is not a target"),
    ("CONFIG_USMP_POOL0_WAIT=-2\n", "CONFIG_USMP_POOL0_WAIT=-2: expected wait states"),
])
def test_mistakes_name_the_symbol(text, message):
    with pytest.raises(UsmpError, match=message):
        pools(text)

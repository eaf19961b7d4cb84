"""Reading .config and prj.conf."""
import pytest

from usmp.errors import UsmpError
from usmp.zephyr.dotconfig import parse_config_text, read_config
from zephyr_helpers import PINNED_CONFIG


def test_values_are_typed():
    config = parse_config_text('CONFIG_A=y\nCONFIG_B=n\nCONFIG_C=4096\nCONFIG_D=0x20\nCONFIG_E="a \\"q\\" b"\n'
                               "# CONFIG_F is not set\n# a comment\n\n")
    assert config == {"CONFIG_A": True, "CONFIG_B": False, "CONFIG_C": 4096, "CONFIG_D": 32,
                      "CONFIG_E": 'a "q" b', "CONFIG_F": False}


def test_typed_accessors_fall_back_on_wrong_types():
    config = parse_config_text('CONFIG_S="text"\nCONFIG_N=3\nCONFIG_Y=y\n')
    assert config.string("CONFIG_N", "dflt") == "dflt"
    assert config.integer("CONFIG_Y", 7) == 7
    assert config.integer("CONFIG_N") == 3 and config.flag("CONFIG_Y") and not config.flag("CONFIG_S")


def test_fixture_dotconfig():
    config = read_config(PINNED_CONFIG)
    assert config["CONFIG_USMP_POOL2_REGION"] == "usmp_pool2"
    assert config["CONFIG_USMP_POOL3"] is False
    assert config.source == str(PINNED_CONFIG)


def test_garbage_line_names_file_and_line():
    with pytest.raises(UsmpError, match=r"prj.conf:2: not a Kconfig assignment"):
        parse_config_text("CONFIG_A=y\nUSMP=y\n", "prj.conf")


def test_unterminated_string():
    with pytest.raises(UsmpError, match="unterminated string"):
        parse_config_text('CONFIG_A="abc\n')


def test_missing_file(tmp_path):
    with pytest.raises(UsmpError, match="cannot read Kconfig file"):
        read_config(tmp_path / "nope.config")

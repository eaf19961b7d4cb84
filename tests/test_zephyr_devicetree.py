"""Memory regions from zephyr.dts (our parser) and edt.pickle (Zephyr's library)."""
import pytest

from usmp.errors import UsmpError
from usmp.zephyr.devicetree import load_devicetree, parse_dts, read_dts
from zephyr_helpers import DTS, require_zephyr, write_edt_pickle


def test_regions_labels_and_chosen():
    tree = read_dts(DTS)
    sram1 = tree.region("sram1", "test")
    assert (sram1.address, sram1.size, sram1.linker_name) == (0x20003000, 4096, "SRAM1")
    assert tree.region("usmp_pool2", "test") == sram1  # a second label on the same node
    assert tree.region("chosen:zephyr,sram", "test").size == 12 * 1024
    flash = tree.region("chosen:zephyr,flash", "test")
    assert (flash.path, flash.size, flash.linker_name) == ("/soc/flash-controller@4001e000/flash@0", 256 * 1024, None)


def test_unknown_label_lists_memory_nodes():
    with pytest.raises(UsmpError, match=r"CONFIG_X: .* no node labelled 'sram9' \(memory nodes: .*sram1"):
        read_dts(DTS).region("sram9", "CONFIG_X")


def test_unknown_chosen():
    with pytest.raises(UsmpError, match="no chosen node 'zephyr,dtcm'"):
        read_dts(DTS).region("chosen:zephyr,dtcm", "here")


def test_node_without_reg_is_not_a_region():
    tree = parse_dts('/dts-v1/;\n/ { #address-cells = <1>; #size-cells = <1>; lbl: thing { status = "okay"; }; };')
    with pytest.raises(UsmpError, match="has no reg property"):
        tree.region("lbl", "here")


def test_two_cell_addresses():
    tree = parse_dts("/ { #address-cells = <2>; #size-cells = <2>;\n"
                     "  big: memory@100000000 { reg = <0x1 0x0 0x0 0x2000>; }; };")
    region = tree.region("big", "here")
    assert (region.address, region.size) == (1 << 32, 0x2000)


def test_unpreprocessed_source_is_refused():
    with pytest.raises(UsmpError, match="not a number"):
        parse_dts("/ { m: memory@0 { reg = <0x0 DT_SIZE_K(4)>; }; };", "board.dts")


def test_edt_pickle_agrees_with_dts(tmp_path):
    base = require_zephyr()
    pickle_path = write_edt_pickle(base, DTS, tmp_path)
    from_pickle = load_devicetree(pickle_path, base)
    assert from_pickle.source == str(pickle_path)
    from_dts = read_dts(DTS)
    for ref in ("sram1", "usmp_pool2", "scratch", "chosen:zephyr,sram", "chosen:zephyr,flash"):
        assert from_pickle.region(ref, ref) == from_dts.region(ref, ref)

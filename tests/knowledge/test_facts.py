"""Xid lines (old and new driver formats), NCCL device lines, watchdog sequence numbers."""

from __future__ import annotations

from knowledge.facts import nccl_bus_to_pci, norm_pci, parse_device, parse_seq, parse_world, parse_xid


def test_xid_formats() -> None:
    new = parse_xid("NVRM: Xid (PCI:0000:0b:00): 119, pid=11431, name=gpu-feature-dis, Timeout after 45s")
    assert new is not None and (new.pci, new.code) == ("0000:0b:00", 119)
    assert "Timeout after 45s" in new.message
    old = parse_xid("[12.5] NVRM: Xid (0000:05:00): 79, GPU has fallen off the bus.")
    assert old is not None and (old.pci, old.code) == ("0000:05:00", 79)
    unknown_pid = parse_xid(
        "NVRM: Xid (PCI:0000:3b:00): 13, pid='<unknown>', name=<unknown>, Graphics Exception"
    )
    assert unknown_pid is not None and unknown_pid.code == 13
    assert parse_xid("Xid mentioned without the driver prefix") is None


def test_bus_ids() -> None:
    assert norm_pci("00000000:05:00.0") == "0000:05:00"
    assert norm_pci("05:00") == "0000:05:00"
    assert nccl_bus_to_pci("5000") == "0000:05:00"
    assert nccl_bus_to_pci("18000") == "0000:18:00"
    assert nccl_bus_to_pci("ca000") == "0000:ca:00"


def test_nccl_device_line() -> None:
    dev = parse_device(
        "gpu-03:2026:2126 [2] NCCL INFO comm 0x5581f2c0 rank 26 nranks 64 cudaDev 2 nvmlDev 2 busId 18000 "
        "commId 0x9a1c - Init COMPLETE"
    )
    assert dev is not None and (dev.host, dev.rank, dev.nranks, dev.pci) == ("gpu-03", 26, 64, "0000:18:00")


def test_seq_and_world() -> None:
    assert parse_seq("WorkNCCL(SeqNum=7311, OpType=ALLGATHER, NumelIn=1)") == ("ALLGATHER", 7311)
    assert parse_world("world_size=64") == 64
    assert parse_world("nothing") is None

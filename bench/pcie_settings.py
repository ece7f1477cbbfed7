#!/usr/bin/env python3
"""pcie_settings.py: the PCIe settings that AHEAD's eq. 4 and 5 take (MPS, MRRS, RCB) as a node's GPUs and the
bridges above them are configured, read from their PCI Express capability in /sys (root needed for the extended
config space; the capability is in the first 256 bytes). Prints one line per device: its address, vendor:device,
max payload supported, MPS, MRRS, RCB, link speed and width. Usage: python3 bench/pcie_settings.py [VENDOR_HEX]"""
import os, sys

SPEEDS = {1: "2.5GT/s", 2: "5GT/s", 3: "8GT/s", 4: "16GT/s", 5: "32GT/s", 6: "64GT/s"}


def pcie_cap(cfg):
    if len(cfg) < 0x40 or not (cfg[0x06] & 0x10):  # status: capabilities list
        return None
    at, seen = cfg[0x34] & 0xFC, 0
    while at and seen < 48:
        if cfg[at] == 0x10:
            return at
        at, seen = cfg[at + 1] & 0xFC, seen + 1
    return None


def describe(path):
    with open(os.path.join(path, "config"), "rb") as f:
        cfg = f.read()
    at = pcie_cap(cfg)
    vendor = int.from_bytes(cfg[0:2], "little")
    device = int.from_bytes(cfg[2:4], "little")
    name = f"{os.path.basename(path)} {vendor:04x}:{device:04x}"
    if at is None:
        return f"{name} no PCI Express capability"
    devcap = int.from_bytes(cfg[at + 4:at + 8], "little")
    devctl = int.from_bytes(cfg[at + 8:at + 10], "little")
    linkctl = int.from_bytes(cfg[at + 0x10:at + 0x12], "little")
    linksta = int.from_bytes(cfg[at + 0x12:at + 0x14], "little")
    mps_sup = 128 << (devcap & 7)
    mps = 128 << ((devctl >> 5) & 7)
    mrrs = 128 << ((devctl >> 12) & 7)
    rcb = 128 if linkctl & 0x8 else 64
    speed = SPEEDS.get(linksta & 0xF, f"code {linksta & 0xF}")
    width = (linksta >> 4) & 0x3F
    return f"{name} mps_supported={mps_sup}B mps={mps}B mrrs={mrrs}B rcb={rcb}B link={speed} x{width}"


def main():
    vendor = int(sys.argv[1], 16) if len(sys.argv) > 1 else 0x10DE
    root = "/sys/bus/pci/devices"
    for dev in sorted(os.listdir(root)):
        path = os.path.realpath(os.path.join(root, dev))
        with open(os.path.join(path, "vendor")) as f:
            if int(f.read(), 16) != vendor:
                continue
        # The device and every PCI bridge above it, nearest first.
        chain, at = [], path
        while os.path.exists(os.path.join(at, "config")):
            chain.append(at)
            at = os.path.dirname(at)
        for i, p in enumerate(chain):
            print(("  above: " if i else "") + describe(p))


if __name__ == "__main__":
    main()

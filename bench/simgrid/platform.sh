#!/usr/bin/env bash
# platform.sh HOSTS: a SimGrid platform of HOSTS hosts h0.. on a two-level fat tree, 16 hosts per leaf, 4 spines,
# 12.5 GB/s split-duplex cables, no latency (FatTree zone: d-mod-k routing).
hosts=$1
leaves=$((hosts / 16))
cat <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="ft" prefix="h" suffix="" radical="0-$((hosts - 1))" speed="1Gf" bw="12.5GBps" lat="0"
           sharing_policy="SPLITDUPLEX" topology="FAT_TREE" topo_parameters="2;16,$leaves;1,4;1,1"/>
</platform>
XML

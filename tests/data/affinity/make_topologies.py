#!/usr/bin/env python3
"""Writes the hwloc 2.x XML topologies the planner's tests read (run it here
to regenerate them; `hwloc-ls --input FILE` shows one):

  xeon-2s-smt.xml    a 2-socket Xeon, 20 cores a socket with 2 hardware threads
                     each, Linux's numbering (a core's siblings are N apart),
                     a NUMA node and a 27.5 MiB L3 per socket
  epyc-2s-8l3.xml    a 2-socket AMD EPYC (Milan, 32 cores a socket): 8 core
                     complexes of 4 cores a socket, each its own 32 MiB L3
  xeon-2s-snc2.xml   a 2-socket Xeon with sub-NUMA clustering (SNC2): 24 cores
                     a socket with 2 hardware threads each, Linux's numbering,
                     two NUMA nodes a socket of 12 cores each (hwloc: a Group
                     per cluster holding its NUMA node) under one 35.75 MiB L3
                     per socket, as Linux's sysfs and hwloc report it under SNC
  hybrid-client.xml  a hybrid client CPU (Alder Lake-like): 8 performance
                     cores with 2 threads each, then 4 efficiency cores sharing
                     one L2, with hwloc's CPU kinds (IntelCore, IntelAtom)
"""
import os

KIB = 1024
MIB = 1024 * KIB


class Writer:
    def __init__(self, total_pus):
        self.lines = []
        self.gp = 0
        self.total = total_pus
        self.logical = {}

    def mask(self, cpus):
        value = 0
        for cpu in cpus:
            value |= 1 << cpu
        words = max(1, (max(cpus, default=0) // 32) + 1)
        parts = [(value >> (32 * w)) & 0xFFFFFFFF for w in range(words - 1, -1, -1)]
        return ",".join(f"0x{p:08x}" for p in parts)

    def open(self, depth, kind, cpus, nodes, extra="", close=False):
        self.gp += 1
        index = self.logical.setdefault(kind, 0)
        self.logical[kind] = index + 1
        os_index = extra_os = index
        if kind == "PU":
            os_index = cpus[0]
        cs = self.mask(cpus)
        ns = self.mask(nodes)
        end = "/>" if close else ">"
        self.lines.append(
            f'{"  " * depth}<object type="{kind}" os_index="{os_index}" cpuset="{cs}" complete_cpuset="{cs}" '
            f'nodeset="{ns}" complete_nodeset="{ns}" gp_index="{self.gp}"{extra}{end}')

    def close(self, depth):
        self.lines.append(f'{"  " * depth}</object>')


def cache_attrs(size, depth, kind):
    return f' cache_size="{size}" depth="{depth}" cache_linesize="64" cache_associativity="8" cache_type="{kind}"'


def core(w, depth, pus, node, l2=None, l1d=48 * KIB, l1i=32 * KIB):
    """A core with its own L2 (when `l2`), L1d and L1i, and its PUs."""
    if l2:
        w.open(depth, "L2Cache", pus, [node], cache_attrs(l2, 2, 0))
        depth += 1
    w.open(depth, "L1Cache", pus, [node], cache_attrs(l1d, 1, 1))
    w.open(depth + 1, "L1iCache", pus, [node], cache_attrs(l1i, 1, 2))
    w.open(depth + 2, "Core", pus, [node])
    for pu in pus:
        w.open(depth + 3, "PU", [pu], [node], close=True)
    for d in (depth + 2, depth + 1, depth):
        w.close(d)
    if l2:
        w.close(depth - 1)


def document(w, machine_cpus, nodes, body, kinds=""):
    cs = w.mask(machine_cpus)
    ns = w.mask(nodes)
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!DOCTYPE topology SYSTEM "hwloc2.dtd">',
        '<topology version="2.0">',
        f'  <object type="Machine" os_index="0" cpuset="{cs}" complete_cpuset="{cs}" allowed_cpuset="{cs}" '
        f'nodeset="{ns}" complete_nodeset="{ns}" allowed_nodeset="{ns}" gp_index="{10000}">',
        '    <info name="Backend" value="Linux"/>',
        '    <info name="Architecture" value="x86_64"/>',
    ]
    return "\n".join(head + body + ["  </object>"] + ([kinds] if kinds else []) + ["</topology>", ""])


def numa(w, depth, cpus, node):
    w.open(depth, "NUMANode", cpus, [node], ' local_memory="137438953472"', close=True)
    w.lines[-1] = w.lines[-1].replace(f'os_index="{w.logical["NUMANode"] - 1}"', f'os_index="{node}"')


def xeon():
    packages, cores, threads = 2, 20, 2
    total = packages * cores * threads
    w = Writer(total)
    w.lines = []
    for p in range(packages):
        pkg = [t * packages * cores + p * cores + c for c in range(cores) for t in range(threads)]
        w.open(2, "Package", sorted(pkg), [p], "")
        w.lines.append('      <info name="CPUVendor" value="GenuineIntel"/>')
        w.lines.append('      <info name="CPUModel" value="Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz"/>')
        numa(w, 3, sorted(pkg), p)
        w.open(3, "L3Cache", sorted(pkg), [p], cache_attrs(28835840, 3, 0))
        for c in range(cores):
            pus = [t * packages * cores + p * cores + c for t in range(threads)]
            core(w, 4, pus, p, l2=1 * MIB, l1d=32 * KIB)
        w.close(3)
        w.close(2)
    return document(w, range(total), range(packages), w.lines)


def epyc():
    packages, ccx, cores, threads = 2, 8, 4, 2
    per_package = ccx * cores
    total = packages * per_package * threads
    w = Writer(total)
    for p in range(packages):
        pkg = sorted(t * packages * per_package + p * per_package + c for c in range(per_package) for t in range(threads))
        w.open(2, "Package", pkg, [p], "")
        w.lines.append('      <info name="CPUVendor" value="AuthenticAMD"/>')
        w.lines.append('      <info name="CPUModel" value="AMD EPYC 7543 32-Core Processor"/>')
        numa(w, 3, pkg, p)
        for x in range(ccx):
            l3 = sorted(t * packages * per_package + p * per_package + x * cores + c
                        for c in range(cores) for t in range(threads))
            w.open(3, "L3Cache", l3, [p], cache_attrs(32 * MIB, 3, 0))
            for c in range(cores):
                pus = [t * packages * per_package + p * per_package + x * cores + c for t in range(threads)]
                core(w, 4, pus, p, l2=512 * KIB, l1d=32 * KIB)
            w.close(3)
        w.close(2)
    return document(w, range(total), range(packages), w.lines)


def snc2():
    packages, clusters, cores, threads = 2, 2, 12, 2
    per_package = clusters * cores
    total = packages * per_package * threads
    w = Writer(total)

    def pu_of(p, c, t):
        return t * packages * per_package + p * per_package + c

    for p in range(packages):
        pkg = sorted(pu_of(p, c, t) for c in range(per_package) for t in range(threads))
        nodes = [p * clusters + k for k in range(clusters)]
        w.open(2, "Package", pkg, nodes, "")
        w.lines.append('      <info name="CPUVendor" value="GenuineIntel"/>')
        w.lines.append('      <info name="CPUModel" value="Intel(R) Xeon(R) Platinum 8260 CPU @ 2.40GHz"/>')
        w.open(3, "L3Cache", pkg, nodes, cache_attrs(37486592, 3, 0))
        for k in range(clusters):
            node = p * clusters + k
            first = k * cores
            cluster = sorted(pu_of(p, first + c, t) for c in range(cores) for t in range(threads))
            w.open(4, "Group", cluster, [node], ' kind="1000" subkind="0"')
            numa(w, 5, cluster, node)
            for c in range(cores):
                core(w, 5, [pu_of(p, first + c, t) for t in range(threads)], node, l2=1 * MIB, l1d=32 * KIB)
            w.close(4)
        w.close(3)
        w.close(2)
    return document(w, range(total), range(packages * clusters), w.lines)


def hybrid():
    w = Writer(20)
    allcpus = list(range(20))
    w.open(2, "Package", allcpus, [0], "")
    w.lines.append('      <info name="CPUVendor" value="GenuineIntel"/>')
    w.lines.append('      <info name="CPUModel" value="12th Gen Intel(R) Core(TM) i7-12700"/>')
    numa(w, 3, allcpus, 0)
    w.open(3, "L3Cache", allcpus, [0], cache_attrs(25 * MIB, 3, 0))
    for c in range(8):
        core(w, 4, [2 * c, 2 * c + 1], 0, l2=1280 * KIB, l1d=48 * KIB)
    w.open(4, "L2Cache", list(range(16, 20)), [0], cache_attrs(2 * MIB, 2, 0))
    for c in range(4):
        core(w, 5, [16 + c], 0, l2=None, l1d=32 * KIB, l1i=64 * KIB)
    w.close(4)
    w.close(3)
    w.close(2)
    kinds = "\n".join([
        f'  <cpukind cpuset="{w.mask(range(16, 20))}" forced_efficiency="0">',
        '    <info name="FrequencyMaxMHz" value="3600"/>',
        '    <info name="CoreType" value="IntelAtom"/>',
        '  </cpukind>',
        f'  <cpukind cpuset="{w.mask(range(16))}" forced_efficiency="0">',
        '    <info name="FrequencyMaxMHz" value="4900"/>',
        '    <info name="CoreType" value="IntelCore"/>',
        '  </cpukind>',
    ])
    return document(w, allcpus, [0], w.lines, kinds)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, make in (("xeon-2s-smt.xml", xeon), ("epyc-2s-8l3.xml", epyc), ("hybrid-client.xml", hybrid),
                       ("xeon-2s-snc2.xml", snc2)):
        with open(os.path.join(here, name), "w") as out:
            out.write(make())

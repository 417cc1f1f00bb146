#!/usr/bin/env python3
"""Drafted the rows of events/intel_{skl,icl,spr}_events.hpp from Intel's
perfmon event data (github.com/intel/perfmon, the JSON that perf's
tools/perf/pmu-events/arch/x86/{skylake,skylakex,cascadelakex,icelake,
icelakex,sapphirerapids,emeraldrapids} is generated from).

It drafted them once: the headers are the source of truth now, edited by
hand where the SDM or a test says so. Kept so that a newer perfmon release
can be drafted again and compared (diff the output with the header).

  scripts/draft-intel-core-events.py skl PERFMON_DIR > /tmp/skl.hpp

What it takes: every core event of the listed files but the offcore
response ones (OFFCORE_RESPONSE.*: a request/response MSR value each, tens
of thousands of rows), deprecated names, AnyThread rows (deprecated since
Ice Lake, and a bit our encoders do not set) and events with two codes
(a different code per counter). Where a generation's table is the union of
a client and a server file, a row in one file only says so in its
description.

The predicates below were assigned by hand over lib/tagop/conditions.hpp,
one per event name that means "this one retired op", the same names in
every generation; every other row is count-only.
"""
import json
import sys

# Event name -> predicate over lib/tagop/conditions.hpp, by hand: what one
# retired op (instruction) the row counts, from the perfmon description and
# the SDM's event tables (Vol. 3B chapter 20 of the current SDM).
PREDICATES = {
    # Instructions and uops retired.
    "INST_RETIRED.ANY": "op",
    "INST_RETIRED.ANY_P": "op",
    "INST_RETIRED.PREC_DIST": "op",
    "UOPS_RETIRED.RETIRE_SLOTS": "op",
    "UOPS_RETIRED.SLOTS": "op",
    "UOPS_RETIRED.MS": "op.microcoded",
    # Branches.
    "BR_INST_RETIRED.ALL_BRANCHES": "branch",
    "BR_INST_RETIRED.ALL_BRANCHES_PEBS": "branch",
    "INST_RETIRED.MACRO_FUSED": "branch & branch.fused",
    "BR_INST_RETIRED.CONDITIONAL": "branch & branch.conditional",
    "BR_INST_RETIRED.COND": "branch & branch.conditional",
    "BR_INST_RETIRED.COND_TAKEN": "branch & branch.conditional & branch.taken",
    "BR_INST_RETIRED.COND_NTAKEN": "branch & branch.conditional & !branch.taken",
    "BR_INST_RETIRED.NOT_TAKEN": "branch & branch.conditional & !branch.taken",
    "BR_INST_RETIRED.NEAR_CALL": "branch & branch.call & !branch.far",
    "BR_INST_RETIRED.NEAR_RETURN": "branch & return & !branch.far",
    "BR_INST_RETIRED.NEAR_TAKEN": "branch & branch.taken & !branch.far",
    "BR_INST_RETIRED.FAR_BRANCH": "branch & branch.far",
    "BR_INST_RETIRED.INDIRECT": "branch & branch.indirect & !return & !branch.far",
    "BR_INST_RETIRED.INDIRECT_CALL": "branch & branch.call & branch.indirect & !branch.far",
    "BR_MISP_RETIRED.ALL_BRANCHES": "branch & branch.mispredicted",
    "BR_MISP_RETIRED.ALL_BRANCHES_PEBS": "branch & branch.mispredicted",
    "BR_MISP_RETIRED.CONDITIONAL": "branch & branch.mispredicted & branch.conditional",
    "BR_MISP_RETIRED.COND": "branch & branch.mispredicted & branch.conditional",
    "BR_MISP_RETIRED.COND_TAKEN": "branch & branch.mispredicted & branch.conditional & branch.taken",
    "BR_MISP_RETIRED.COND_NTAKEN": "branch & branch.mispredicted & branch.conditional & !branch.taken",
    "BR_MISP_RETIRED.NEAR_TAKEN": "branch & branch.mispredicted & branch.taken & !branch.far",
    "BR_MISP_RETIRED.NEAR_CALL": "branch & branch.mispredicted & branch.call & !branch.far",
    "BR_MISP_RETIRED.INDIRECT_CALL": "branch & branch.mispredicted & branch.call & branch.indirect & !branch.far",
    "BR_MISP_RETIRED.INDIRECT": "branch & branch.mispredicted & branch.indirect & !return & !branch.far",
    "BR_MISP_RETIRED.RET": "branch & branch.mispredicted & return & !branch.far",
    # Memory instructions.
    "MEM_INST_RETIRED.ALL_LOADS": "load",
    "MEM_INST_RETIRED.ALL_STORES": "store",
    "MEM_INST_RETIRED.ANY": "load | store",
    "MEM_INST_RETIRED.LOCK_LOADS": "load & mem.locked",
    "MEM_INST_RETIRED.SPLIT_LOADS": "load & mem.split_line",
    "MEM_INST_RETIRED.SPLIT_STORES": "store & mem.split_line",
    "MEM_INST_RETIRED.STLB_MISS_LOADS": "load & dtlb.l2_miss",
    "MEM_INST_RETIRED.STLB_MISS_STORES": "store & dtlb.l2_miss",
    # Where a retired load's data came from.
    "MEM_LOAD_RETIRED.L1_HIT": "load & !dc.miss",
    "MEM_LOAD_RETIRED.L1_MISS": "load & dc.miss",
    "MEM_LOAD_RETIRED.FB_HIT": "load & dc.miss & dc.mab_hit",
    "MEM_LOAD_RETIRED.L2_HIT": "load & dc.miss & !l2.miss",
    "MEM_LOAD_RETIRED.L2_MISS": "load & dc.miss & l2.miss",
    "MEM_LOAD_RETIRED.L3_HIT": "load & src.l3 & !src.remote",
    "MEM_LOAD_RETIRED.L3_MISS": "load & l3.miss",
    "MEM_LOAD_RETIRED.LOCAL_PMM": "load & src.pmem & !src.remote",
    "MEM_LOAD_MISC_RETIRED.UC": "load & mem.uncacheable",
    # perf's data source for an L3 hit says L3 and, for HITM, a Modified
    # line (ds.c, read by lib/mem_data_src.cpp); other snoop results have
    # no condition.
    "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM": "load & src.l3 & src.cache_modified & !src.remote",
    "MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM": "load & src.dram & !src.remote",
    "MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM": "load & src.dram & src.remote",
    "MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM": "load & src.cache & src.cache_modified & src.remote",
    "MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD": "load & src.cache & !src.cache_modified & src.remote",
    "MEM_LOAD_L3_MISS_RETIRED.REMOTE_PMM": "load & src.pmem & src.remote",
    # Load latency: every load at or above the threshold (ldlat); the
    # threshold is a measure (mem.load_latency), not a condition.
    "MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4": "load",
    "MEM_TRANS_RETIRED.STORE_SAMPLE": "store",
    # No FRONTEND_RETIRED row: they count retired instructions whose fetch
    # missed, and the model's I-side conditions are a fetch sample's facts.
}

# Which perfmon files make one generation's table: the first is the main
# one; the others add rows (server or client parts only).
SOURCES = {
    "skl": [("skylake_core.json", "client 06_4E/5E/8E/9E/A5/A6"),
            ("skylakex_core.json", "Skylake-SP/Cascade Lake 06_55"),
            ("cascadelakex_core.json", "Cascade Lake 06_55 steppings 5 and up")],
    "icl": [("icelake_core.json", "Ice Lake client 06_7D/7E"),
            ("icelakex_core.json", "Ice Lake server 06_6A/6C")],
    "spr": [("sapphirerapids_core.json", "Sapphire Rapids 06_8F"),
            ("emeraldrapids_core.json", "Emerald Rapids 06_CF")],
}


def num(s):
    return int(s, 0) if s else 0


def counters_of(spec):
    if spec.startswith("Fixed counter"):
        return None
    return sum(1 << int(c) for c in spec.split(","))


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    gen, folder = sys.argv[1], sys.argv[2]
    rows = {}  # name -> (row, files it is in)
    order = []
    for fname, what in SOURCES[gen]:
        for e in json.load(open(f"{folder}/{fname}"))["Events"]:
            if e.get("Offcore", "0") == "1" or e.get("Deprecated", "0") == "1" or "," in e["EventCode"]:
                continue
            if e.get("AnyThread", "0") == "1":
                continue
            name = e["EventName"]
            enc = (num(e["EventCode"]), num(e["UMask"]), num(e["CounterMask"]), e["Invert"] == "1",
                   e["EdgeDetect"] == "1", e["Counter"], num(e.get("MSRIndex")), num(e.get("MSRValue")))
            precise = e.get("PEBS", e.get("Precise", "0")) not in ("0", None)
            if name in rows:
                assert rows[name][0]["enc"] == enc, (name, rows[name][0]["enc"], enc)
                rows[name][1].append(what)
                continue
            rows[name] = ({"enc": enc, "precise": precise, "desc": e["BriefDescription"]}, [what])
            order.append(name)
    # The load-latency rows by threshold, lowest first: lookups by code
    # (perf's mem-loads, 0xCD:0x01) take the first.
    ldlat_names = sorted((n for n in order if n.startswith("MEM_TRANS_RETIRED.LOAD_LATENCY_GT_")),
                         key=lambda n: int(n.rsplit("_", 1)[1]))
    slots = iter(ldlat_names)
    order = [next(slots) if n.startswith("MEM_TRANS_RETIRED.LOAD_LATENCY_GT_") else n for n in order]
    main_part = SOURCES[gen][0][1]
    for name in order:
        row, parts = rows[name]
        event, umask, cmask, inv, edge, counter, msr, msr_value = row["enc"]
        fields = [f".event = 0x{event:02X}", f".umask = 0x{umask:02X}", f".name = {c_string(name)}"]
        if cmask:
            fields.append(f".cmask = {cmask}")
        if inv:
            fields.append(".inv = true")
        if edge:
            fields.append(".edge = true")
        mask = counters_of(counter)
        if mask is None:
            fields.append(f".fixed_counter = {int(counter.split()[-1])}")
        else:
            fields.append(f".counters = 0x{mask:02X}")
        if row["precise"]:
            fields.append(".precise = true")
        if msr == 0x3F6:
            fields.append(f".ldlat = {msr_value}")
        elif msr == 0x3F7:
            fields.append(f".frontend = 0x{msr_value:X}")
        elif msr not in (0,):
            raise SystemExit(f"{name}: MSR {msr:#x} not handled")
        predicate = PREDICATES.get(name)
        if predicate:
            assert not (cmask or inv or edge), name
            fields.append(f".predicate = {c_string(predicate)}")
        desc = row["desc"].strip()
        if main_part not in parts:
            desc += f" ({', '.join(parts)} only)"
        elif len(SOURCES[gen]) > 1 and len(parts) == 1:
            desc += f" ({main_part} only)"
        fields.append(f".description = {c_string(desc)}")
        print("    {" + ", ".join(fields) + "},")


if __name__ == "__main__":
    main()

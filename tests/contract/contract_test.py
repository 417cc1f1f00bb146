#!/usr/bin/env python3
"""The machine contract: every command's JSON output names its schema
("schema": "tagop.<command>/<major>") and validates against
schemas/<command>.schema.json (python3-jsonschema, Draft 2020-12); the same
commands' CSV output is rectangular. The inputs are real: the bundled IBS
capture, a capture `perf record -e cpu-clock` makes here, every backend's
event table, and a program run under `tagop emulate`.

Environment (meson sets it): TAGOP_EXE, TAGOP_SOURCE_ROOT, TAGOP_BUSY."""

import copy
import csv
import io
import json
import os
import pathlib
import shlex
import subprocess
import sys
import tempfile

import jsonschema

EXE = os.environ["TAGOP_EXE"]
ROOT = pathlib.Path(os.environ["TAGOP_SOURCE_ROOT"])
SCHEMAS = ROOT / "schemas"
EXAMPLE = ROOT / "examples" / "ibs-example.perf.data"
IBS_SAMPLES = ROOT / "examples" / "ibs-samples.txt"

failures = []
used_schemas = set()


def fail(what, why):
    failures.append(f"{what}: {why}")
    print(f"FAIL {what}: {why}", file=sys.stderr)


def run(args, option=""):
    """`tagop ARGS OPTION`, the option before a `--` that starts a command."""
    words = shlex.split(args)
    at = words.index("--") if "--" in words else len(words)
    words[at:at] = shlex.split(option)
    return subprocess.run([EXE] + words, capture_output=True, text=True, timeout=120)


def schema_file(schema_id):
    # "tagop.events.list/1" -> schemas/events.list.schema.json
    name, _, major = schema_id.removeprefix("tagop.").partition("/")
    return SCHEMAS / f"{name}.schema.json", major


def validator(schema_id):
    path, major = schema_file(schema_id)
    schema = json.loads(path.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    if schema.get("$id") != schema_id:
        raise ValueError(f"{path.name}: $id is {schema.get('$id')!r}, not {schema_id!r}")
    return jsonschema.Draft202012Validator(schema)


def check_json(args, schema_id):
    """Runs `tagop ARGS --json`; its output must be one object naming
    schema_id and valid against that schema. Returns the document."""
    r = run(args, "--json")
    if r.returncode != 0:
        fail(args, f"exit {r.returncode}: {r.stderr.strip()[:400]}")
        return None
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError as e:
        fail(args, f"not JSON: {e}")
        return None
    if not isinstance(doc, dict) or doc.get("schema") != schema_id:
        fail(args, f"\"schema\" is {doc.get('schema') if isinstance(doc, dict) else type(doc).__name__!r}, expected {schema_id!r}")
        return None
    v = validator(schema_id)
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:5]:
        fail(args, f"{schema_id}: at /{'/'.join(map(str, e.path))}: {e.message[:300]}")
    used_schemas.add(schema_id)
    if not errors:
        print(f"ok   {schema_id:24} tagop {args} --json")
        must_reject(args, schema_id, v, doc)
    return doc


def must_reject(args, schema_id, v, doc):
    """The schema constrains: the same document without one of its required
    keys, or with "schema" of another major, must fail."""
    required = v.schema.get("required", [])
    for key in required:
        if key == "schema":
            continue
        broken = copy.deepcopy(doc)
        del broken[key]
        if v.is_valid(broken):
            fail(args, f"{schema_id} accepts the output without its required key {key!r}")
    broken = dict(doc, schema=schema_id.split("/")[0] + "/999")
    if v.is_valid(broken):
        fail(args, f"{schema_id} accepts another major version")


def check_csv(args, min_rows=1):
    """`tagop ARGS --format csv`: a header and at least min_rows rows, every
    row as wide as the header."""
    r = run(args, "--format csv")
    if r.returncode != 0:
        fail(args + " --format csv", f"exit {r.returncode}: {r.stderr.strip()[:300]}")
        return
    rows = list(csv.reader(io.StringIO(r.stdout)))
    if len(rows) < 1 + min_rows:
        fail(args + " --format csv", f"{len(rows)} lines, expected a header and at least {min_rows} rows")
        return
    widths = {len(row) for row in rows}
    if len(widths) != 1:
        fail(args + " --format csv", f"rows of different widths {sorted(widths)}")
        return
    print(f"ok   csv {len(rows) - 1:5} rows x {len(rows[0]):2}  tagop {args} --format csv")


def main():
    op = ("decode ibs-op IbsOpCtl=0 IbsOpRip=0x401000 IbsOpData=0x300000 IbsOpData2=3 "
          "IbsOpData3=0x2000000081 IbsDcLinAd=0x7f0000001000 IbsDcPhysAd=0x1234000 --family 19h --model 1")
    fetch = "decode ibs-fetch IbsFetchCtl=0x237000a186a186a IbsFetchLinAd=0x401000 --family 19h --model 1"
    for args in (op, fetch):
        check_json(args, "tagop.decode/1")
        check_csv(args)
    check_json(f"decode --input {IBS_SAMPLES}", "tagop.decode.input/1")
    check_csv(f"decode --input {IBS_SAMPLES}")

    programs = ["program ibs-op --period 0x10000 --count-ops --family 10h --model 4",
                "program ibs-fetch --family 19h --model 1 --randomize",
                "program silvermont MEM_UOPS_RETIRED.L2_HIT_LOADS --pebs --period 20000 --user",
                "program goldmont d1:08 INST_RETIRED.ANY --pebs --period 1000",
                "program p4 1stL_cache_load_miss_retired --pebs --period 4096",
                "program skylake MEM_LOAD_RETIRED.L2_MISS --pebs --period 10007",
                "program icelake mem-loads --pebs --ldlat 30",
                "program sapphirerapids MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4 --pebs --ldlat 30",
                "program zen4 ex_ret_brn_misp 0x28F:0x04 --period 100003 --user"]
    for args in programs:
        check_json(args, "tagop.program/1")
        check_csv(args)

    listed = check_json("events list", "tagop.events.list/1")
    backends = sorted({e["backend"] for e in listed["events"]}) if listed else []
    if backends != ["amd-ibs", "arm-spe", "goldmont", "icelake", "p4", "sapphirerapids", "silvermont", "skylake", "zen1", "zen2", "zen3", "zen4"]:
        fail("events list", f"backends {backends}, expected the twelve tables")
    for b in backends:
        one = check_json(f"events list --backend {b}", "tagop.events.list/1")
        if one and not one["events"]:
            fail(f"events list --backend {b}", "no events")
        check_csv(f"events list --backend {b}", min_rows=10)
    for args in ("events show 0xF206", "events show 0xF249 --family 19h --model 0x21",
                 "events show MEM_UOPS_RETIRED.L1_MISS_LOADS", "events show glm::BACLEARS:ALL",
                 "events show 1stL_cache_load_miss_retired", "events show skl::INST_RETIRED:ANY_P"):
        check_json(args, "tagop.events.show/1")
        check_csv(args)
    found = check_json("events search 'data cache miss'", "tagop.events.search/1")
    if found and (found["query"] != "data cache miss" or not found["events"]):
        fail("events search", f"query {found['query']!r}, {len(found['events'])} events")
    check_csv("events search 'data cache miss'")

    for args in ("compare 'load & dc.miss'", "compare INST_RETIRED.ANY_P --all", "compare 0xF206"):
        check_json(args, "tagop.compare/1")
        check_csv(args)
    check_json("compare --matrix", "tagop.compare.matrix/1")
    check_csv("compare --matrix", min_rows=10)

    check_json("cpu", "tagop.cpu/1")
    check_csv("cpu")

    with tempfile.TemporaryDirectory(prefix="tagop-contract-") as tmp:
        # IBS: the bundled capture, by each grouping, filtered, and with --where.
        for args in ("", "--by module", "--by process", "--by address", "--where 'load & dc.miss'",
                     "--top 3 --sort 0xF206", "--by process,module,function", "--by cpu,thread,address",
                     "--by data", "--by cacheline"):
            ibs = check_json(f"report {EXAMPLE} {args}", "tagop.report/1")
            if ibs is not None and ibs["ibs"] is not True:
                fail(f"report {args}", "the IBS example is not reported as IBS")
            check_csv(f"report {EXAMPLE} {args}")
        # Other captures: what perf record writes here with a software event.
        capture = os.path.join(tmp, "cpu-clock.data")
        busy = os.environ.get("TAGOP_BUSY", "true")
        rec = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c", "100000", "-o", capture, "--", busy, "200"],
                             capture_output=True, text=True, timeout=120)
        if rec.returncode != 0 or not os.path.exists(capture):
            fail("perf record -e cpu-clock", f"exit {rec.returncode}: {rec.stderr.strip()[:300]}")
        else:
            for args in ("", "--by module", "--by process", "--by thread,module,function", "--by cacheline"):
                other = check_json(f"report {capture} {args}", "tagop.report/1")
                if other is not None and (other["ibs"] is not False or other["sample_counts"]["read"] == 0):
                    fail(f"report cpu-clock {args}", f"ibs {other['ibs']}, {other['sample_counts']} samples")
                check_csv(f"report {capture} {args}")
            # annotate: the busy child's spinning function, instruction by instruction.
            check_json(f"annotate {capture} tagop_busy_spin", "tagop.annotate/1")
        # The two kinds share the top level: the keys that both of the schema's records require.
        report = json.loads(schema_file("tagop.report/1")[0].read_text())
        shared = set.intersection(*(set(one["required"]) for one in report["oneOf"]))
        if not {"schema", "file", "by", "sample_counts", "warnings", "rows"} <= shared:
            fail("report.schema.json", f"the IBS and other reports share only {sorted(shared)}")
        for key in sorted(shared):
            for what, args in (("IBS", str(EXAMPLE)), ("cpu-clock", capture)):
                out = run(f"report {args}", "--json")
                if out.returncode == 0 and key not in json.loads(out.stdout):
                    fail(f"report ({what})", f"lacks the shared key {key!r}")

        # Arm SPE: a capture the fixture writes from the packet formats.
        spe = os.path.join(tmp, "spe.data")
        made = subprocess.run([os.environ["TAGOP_SPE_CAPTURE_FIXTURE"], spe], capture_output=True, text=True)
        if made.returncode != 0:
            fail("spe capture fixture", f"exit {made.returncode}: {made.stderr.strip()[:300]}")
        else:
            for args in ("", "--where 'load & dc.miss'", "--rows 0"):
                check_json(f"spe {spe} {args}", "tagop.spe/1")

        counts = os.path.join(tmp, "counts.json")
        emulated = os.path.join(tmp, "emulated.data")
        check_json(f"emulate --as zen3 -o {emulated} --counts {counts} -- true", "tagop.emulate/1")
        check_csv(f"emulate --as zen3 -o {emulated} -- true")
        check_json(f"compare 'load & dc.miss' --counts {counts}", "tagop.compare/1")

    on_disk = {f"tagop.{p.name.removesuffix('.schema.json')}/1" for p in SCHEMAS.glob("*.schema.json")}
    for unused in sorted(on_disk - used_schemas):
        fail(unused, "no command output was validated against this schema")

    print(f"{len(used_schemas)} schemas, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

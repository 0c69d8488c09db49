#!/usr/bin/env python3
"""Helper for scripts/record-match-verdicts.sh (standard library only).

Subcommands (all paths explicit, all output deterministic):

  normalize-text IN OUT     copy a text log, replacing the PID in the ==PID== /
                            --PID-- prefixes, the "Parent PID:" line and the vgdb hints
  normalize-xml IN OUT      copy an XML log, replacing <pid>, <ppid>, <time>
  index DATADIR             read DATADIR/baseline{.xml,.txt,-demangled.xml,-nogen.txt},
                            check that all four logs hold the same errors in the same
                            order, write DATADIR/errors.tsv
  mutate DATADIR PROG [--keep-existing]
                            write DATADIR/rules.supp (one case per rule, record name
                            rNNNN.MUTATION) from the gen-suppression blocks of the
                            baseline (at least RULES_PER_ERROR per error, then the
                            appended families; uses DATADIR/input*.xml when present to
                            leave out rules whose matching is undefined). With
                            --keep-existing, every case already in DATADIR/rules.supp
                            must come out byte for byte the same (new cases may only be
                            appended)
  split DATADIR OUTDIR [--new]
                            write each case of DATADIR/rules.supp to its own file
                            OUTDIR/NNNN.supp (what one Valgrind rule run loads); --new:
                            only the cases without rows in DATADIR/verdicts.tsv
  sample RECDIR K OUTDIR    write OUTDIR/rules.supp: the cases of RECDIR/rules.supp that
                            are FATAL in RECDIR/verdicts.tsv or numbered 1, 1+K, 1+2K, ...
  verdicts DATADIR RUNDIR [--merge]
                            read RUNDIR/NNNN.{xml,err,rc} (one Valgrind run per case file
                            RUNDIR/rules/NNNN.supp) and write DATADIR/verdicts.tsv (--merge:
                            keep the rows of the other rules); a run that is inconsistent
                            with the baseline is run again (up to twice)
  inputs DATADIR            write DATADIR/inputs.tsv (the matcher's input frames) from
                            DATADIR/input.xml and DATADIR/input-noinline.xml
  model DATADIR             compare verdicts.tsv with a model of the 3.19 matcher
                            (valgrind-semantics.md sections 1-2); prints disagreements,
                            and counts the verdicts that compare an obj: pattern with a
                            frame the text log prints with a source line

See tests/data/match/README.md for the file formats.
"""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

PID_FIXED = "1000"
BUILD_ROOT = "/tmp/vgsupp-match"

# --------------------------------------------------------------------------------------
# rules.supp: one case per rule, split on the header comments
# --------------------------------------------------------------------------------------

CASE_HEADER = re.compile(rb"(?m)^# vgsupp match rule (\d+) \(")


def read_cases(path):
    """[(num, bytes)] of a rules.supp, in file order. A case starts at each line that
    starts with its header comment and runs to the next one. The file is split on these
    comment lines, never by parsing records: a deliberately malformed record (a FATAL
    case, a missing brace) must not swallow the next case, and each case keeps its bytes
    (tabs, trailing whitespace, CRLF) exactly."""
    with open(path, "rb") as f:
        data = f.read()
    starts = [(m.start(), m.group(1).decode()) for m in CASE_HEADER.finditer(data)]
    if data and (not starts or starts[0][0] != 0):
        sys.exit("vgmatch: %s: text before the first case header" % path)
    cases = []
    for k, (at, num) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(data)
        cases.append((num, data[at:end]))
    nums = [n for n, _ in cases]
    if nums != sorted(set(nums)):
        sys.exit("vgmatch: %s: case numbers not strictly increasing" % path)
    return cases


def case_slug(case):
    """The mutation named in a case's header."""
    m = re.search(rb"(?m)^# mutation: (\S+)", case)
    return m.group(1).decode() if m else "?"


def rule_name(num, slug):
    """The record name of case NUM: what Valgrind's <suppcounts> reports. The mutation is
    a name line of its own: no generated mutation touches the name line (layouts only
    change the whitespace around it), so every case names its record."""
    return "r%s.%s" % (num, slug)


def write_cases(path, cases):
    with open(path, "wb") as f:
        for _, body in cases:
            f.write(body)


def verdict_rows(datadir):
    """{rule: [(error_index, verdict)]} of DATADIR/verdicts.tsv ({} when absent)."""
    rows = {}
    path = os.path.join(datadir, "verdicts.tsv")
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        next(f)
        for line in f:
            r, e, v = line.rstrip("\n").split("\t")
            rows.setdefault(r, []).append((int(e), v))
    return rows


# --------------------------------------------------------------------------------------
# log normalisation
# --------------------------------------------------------------------------------------


def normalize_text(src, dst):
    with open(src, "rb") as f:
        data = f.read().decode("utf-8", "surrogateescape")
    data = re.sub(r"(?m)^==\d+==", "==" + PID_FIXED + "==", data)
    data = re.sub(r"(?m)^--\d+--", "--" + PID_FIXED + "--", data)
    data = re.sub(r"(?m)^(==\d+== Parent PID: )\d+$", r"\g<1>999", data)
    # -v: the vgdb hints name the PID
    data = re.sub(r"(/tmp/vgdb-pipe-[a-z-]*?)\d+(-by-)", r"\g<1>" + PID_FIXED + r"\g<2>", data)
    data = re.sub(r"(vgdb --pid=)\d+", r"\g<1>" + PID_FIXED, data)
    with open(dst, "wb") as f:
        f.write(data.encode("utf-8", "surrogateescape"))


def normalize_xml(src, dst):
    with open(src, "rb") as f:
        data = f.read().decode("utf-8", "surrogateescape")
    data = re.sub(r"<pid>\d+</pid>", "<pid>" + PID_FIXED + "</pid>", data)
    data = re.sub(r"<ppid>\d+</ppid>", "<ppid>999</ppid>", data)
    data = re.sub(r"<time>[0-9:.]+ </time>", "<time>00:00:00:00.000 </time>", data)
    with open(dst, "wb") as f:
        f.write(data.encode("utf-8", "surrogateescape"))


# --------------------------------------------------------------------------------------
# XML errors
# --------------------------------------------------------------------------------------

LEAK_KIND_WORD = {
    "Leak_DefinitelyLost": "definite",
    "Leak_IndirectlyLost": "indirect",
    "Leak_PossiblyLost": "possible",
    "Leak_StillReachable": "reachable",
}


def _txt(el, tag):
    c = el.find(tag)
    return None if c is None else (c.text or "")


def parse_frames(stack):
    frames = []
    for fr in stack.findall("frame"):
        frames.append(
            {
                "ip": _txt(fr, "ip"),
                "obj": _txt(fr, "obj"),
                "fn": _txt(fr, "fn"),
                "dir": _txt(fr, "dir"),
                "file": _txt(fr, "file"),
                "line": _txt(fr, "line"),
            }
        )
    return frames


def parse_xml_errors(path):
    """Return (errors, errorcounts, suppcounts) of one XML log.

    errors: list of dicts in document order (only <error> children of the root; the
    duplicated top-level <suppression> elements are ignored)."""
    root = ET.parse(path).getroot()
    errors = []
    for el in root.findall("error"):
        kind = _txt(el, "kind")
        what = _txt(el, "what")
        if what is None:
            xw = el.find("xwhat")
            what = _txt(xw, "text") if xw is not None else ""
        stack = el.find("stack")
        frames = parse_frames(stack) if stack is not None else []
        supp = el.find("suppression")
        s = None
        if supp is not None:
            sframes = []
            for sf in supp.findall("sframe"):
                fn, obj = _txt(sf, "fun"), _txt(sf, "obj")
                sframes.append("fun:" + fn if fn is not None else "obj:" + (obj or ""))
            s = {
                "skind": _txt(supp, "skind"),
                "skaux": _txt(supp, "skaux"),
                "sframes": sframes,
                "rawtext": (_txt(supp, "rawtext") or "").strip("\n"),
            }
        errors.append(
            {
                "unique": _txt(el, "unique"),
                "kind": kind,
                "what": what,
                "frames": frames,
                "supp": s,
            }
        )
    errorcounts = {}
    ec = root.find("errorcounts")
    if ec is not None:
        for p in ec.findall("pair"):
            errorcounts[_txt(p, "unique")] = int(_txt(p, "count"))
    suppcounts = {}
    sc = root.find("suppcounts")
    if sc is not None:
        for p in sc.findall("pair"):
            suppcounts[_txt(p, "name")] = int(_txt(p, "count"))
    return errors, errorcounts, suppcounts


def error_key(e):
    """Stable identity of an error across runs: suppression kind, XML kind and every
    printed frame as fn@file:line (fn@obj when there is no line info)."""
    parts = []
    for fr in e["frames"]:
        fn = fr["fn"] if fr["fn"] is not None else "???"
        if fr["file"] is not None:
            parts.append("%s@%s:%s" % (fn, fr["file"], fr["line"]))
        else:
            parts.append("%s@%s" % (fn, fr["obj"] if fr["obj"] is not None else "???"))
    skind = e["supp"]["skind"] if e["supp"] else "?"
    return "%s|%s|%s" % (skind, e["kind"], ";".join(parts))


def xml_error_lines(path):
    out = []
    with open(path, "rb") as f:
        for i, line in enumerate(f, 1):
            if line.rstrip(b"\r\n") == b"<error>":
                out.append(i)
    return out


# --------------------------------------------------------------------------------------
# text errors
# --------------------------------------------------------------------------------------

TEXT_HEADER = re.compile(
    r"^==\d+== ("
    r"Invalid (read|write) of size \d+"
    r"|Use of uninitialised value of size \d+"
    r"|Conditional jump or move depends on uninitialised value\(s\)"
    r"|Syscall param .* (contains|points to) (uninitialised|unaddressable) byte\(s\)"
    r"|Invalid free\(\) / delete / delete\[\] / realloc\(\)"
    r"|Mismatched free\(\) / delete / delete \[\]"
    r"|Source and destination overlap in .*"
    r"|Jump to the invalid address stated on the next line"
    r"|Argument '.*' of function .* has a fishy \(possibly negative\) value: -?\d+"
    r"|(Uninitialised|Unaddressable) byte\(s\) found during client check request"
    r"|Illegal memory pool address"
    r"|.* contains unaddressable byte\(s\)"
    r"|[0-9,]+ (\([0-9,]+ direct, [0-9,]+ indirect\) )?bytes in [0-9,]+ blocks are "
    r"(definitely|indirectly|possibly) lost in loss record [0-9,]+ of [0-9,]+"
    r"|[0-9,]+ (\([0-9,]+ direct, [0-9,]+ indirect\) )?bytes in [0-9,]+ blocks are "
    r"still reachable in loss record [0-9,]+ of [0-9,]+"
    r")$"
)
TEXT_FRAME = re.compile(r"^==\d+==    (at|by) 0x([0-9A-F]+): (.*)$")
TEXT_CONTEXT = re.compile(r"^==\d+== \d+ errors in context \d+ of \d+:$")


def split_what(what):
    """'fn (file:12)' / 'fn (in /obj)' / '???' -> (display fn, location or None)."""
    m = re.match(r"^(.*) \(([^()]*)\)$", what)
    if m:
        return m.group(1), m.group(2)
    return what, None


def parse_text_errors(path):
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8", "surrogateescape").split("\n")
    errs = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if TEXT_CONTEXT.match(line):
            break  # the -v list of error contexts repeats the errors: stop
        if TEXT_HEADER.match(line):
            header = line.split("== ", 1)[1]
            frames = []
            j = i + 1
            while j < len(lines):
                m = TEXT_FRAME.match(lines[j])
                if not m:
                    break
                fn, loc = split_what(m.group(3))
                frames.append({"ip": "0x" + m.group(2), "display": fn, "loc": loc})
                j += 1
            errs.append({"line": i + 1, "header": header, "frames": frames})
            i = j
            continue
        i += 1
    return errs


# --------------------------------------------------------------------------------------
# index
# --------------------------------------------------------------------------------------


def load_baseline(datadir):
    xml_path = os.path.join(datadir, "baseline.xml")
    txt_path = os.path.join(datadir, "baseline.txt")
    errors, errorcounts, _ = parse_xml_errors(xml_path)
    xlines = xml_error_lines(xml_path)
    terrs = parse_text_errors(txt_path)
    problems = []
    if len(xlines) != len(errors):
        problems.append("%d <error> lines but %d errors" % (len(xlines), len(errors)))
    if len(terrs) != len(errors):
        problems.append("text log has %d errors, XML log %d" % (len(terrs), len(errors)))
    for n, (e, t) in enumerate(zip(errors, terrs), 1):
        xips = [fr["ip"] for fr in e["frames"]]
        tips = [fr["ip"] for fr in t["frames"]]
        if xips != tips:
            problems.append("error %d: text and XML stacks differ (%s vs %s)" % (n, tips, xips))
        # 3.19 quirk: for 2-argument Overlap errors (strcpy) and for FishyValue the
        # XML <what> text ends with a newline; compare without it.
        if e["what"].rstrip("\n") != t["header"]:
            problems.append("error %d: header %r vs what %r" % (n, t["header"], e["what"]))
        if e["supp"] is None:
            problems.append("error %d: no gen-suppression block" % n)
            continue
        sf = e["supp"]["sframes"]
        if len(sf) != len(e["frames"]):
            problems.append("error %d: %d sframes for %d frames" % (n, len(sf), len(e["frames"])))
        for k, (s, fr) in enumerate(zip(sf, e["frames"])):
            if s.startswith("fun:"):
                ok = fr["fn"] == s[4:]
            else:
                ok = fr["fn"] is None and (s[4:] == "*" or s[4:] == fr["obj"])
            if not ok:
                problems.append("error %d frame %d: sframe %r vs frame %r" % (n, k, s, fr))
        for k, (fr, tf) in enumerate(zip(e["frames"], t["frames"])):
            fr["display"] = tf["display"]
    keys = [error_key(e) for e in errors]
    if len(set(keys)) != len(keys):
        problems.append("duplicate error keys")
    for e, k, xl, t in zip(errors, keys, xlines, terrs):
        e["key"] = k
        e["xml_line"] = xl
        e["text_line"] = t["line"]
        e["count"] = 1 if e["kind"].startswith("Leak_") else errorcounts.get(e["unique"], 0)
    if problems:
        for p in problems:
            print("vgmatch index %s: %s" % (datadir, p), file=sys.stderr)
        sys.exit(1)
    return errors


def load_variants(datadir, errors):
    """The demangled-only logs of the same run options: baseline-demangled.xml (XML with
    the default --demangle=yes, no --gen-suppressions: what CI plugins consume) and
    baseline-nogen.txt (text -v, no --gen-suppressions). Checks that they hold exactly
    the errors of baseline.xml, in the same order (kinds, texts, IPs, objects, source
    locations, occurrence counts; function names as the text log displays them), and
    that neither shows a gen-suppression block. Returns (XML error lines, text error
    lines)."""
    dem_path = os.path.join(datadir, "baseline-demangled.xml")
    nogen_path = os.path.join(datadir, "baseline-nogen.txt")
    dem, dem_counts, _ = parse_xml_errors(dem_path)
    dlines = xml_error_lines(dem_path)
    nogen = parse_text_errors(nogen_path)
    _, errorcounts, _ = parse_xml_errors(os.path.join(datadir, "baseline.xml"))
    problems = []
    if not (len(dem) == len(dlines) == len(nogen) == len(errors)):
        problems.append("errors: baseline.xml %d, baseline-demangled.xml %d (%d <error> lines), "
                        "baseline-nogen.txt %d" % (len(errors), len(dem), len(dlines), len(nogen)))
    for n, (e, d, t) in enumerate(zip(errors, dem, nogen), 1):
        if (d["kind"], d["what"]) != (e["kind"], e["what"]):
            problems.append("error %d: demangled XML kind/what %r vs %r" % (
                n, (d["kind"], d["what"]), (e["kind"], e["what"])))
        if d["supp"] is not None:
            problems.append("error %d: demangled XML has a gen-suppression block" % n)
        if t["header"] != e["what"].rstrip("\n"):
            problems.append("error %d: nogen text header %r vs what %r" % (n, t["header"], e["what"]))
        if dem_counts.get(d["unique"], 0) != errorcounts.get(e["unique"], 0):
            problems.append("error %d: occurrence counts differ" % n)
        want = [(fr["ip"], fr["obj"], fr["dir"], fr["file"], fr["line"]) for fr in e["frames"]]
        got = [(fr["ip"], fr["obj"], fr["dir"], fr["file"], fr["line"]) for fr in d["frames"]]
        if got != want:
            problems.append("error %d: demangled XML frames differ: %s vs %s" % (n, got, want))
        # The demangled names are the ones the text log displays.
        shown = [fr["display"] for fr in e["frames"]]
        if [fr["fn"] if fr["fn"] is not None else "???" for fr in d["frames"]] != shown:
            problems.append("error %d: demangled XML names %s vs text %s" % (
                n, [fr["fn"] for fr in d["frames"]], shown))
        if [(fr["ip"], fr["display"]) for fr in t["frames"]] != \
                [(fr["ip"], fr["display"]) for fr in e["frames"]]:
            problems.append("error %d: nogen text frames differ from baseline.txt" % n)
    with open(nogen_path, "rb") as f:
        if b"<insert_a_suppression_name_here>" in f.read():
            problems.append("baseline-nogen.txt has a gen-suppression block")
    if problems:
        for p in problems:
            print("vgmatch index %s: %s" % (datadir, p), file=sys.stderr)
        sys.exit(1)
    return dlines, [t["line"] for t in nogen]


def cmd_index(datadir):
    errors = load_baseline(datadir)
    dlines, nlines = load_variants(datadir, errors)
    with open(os.path.join(datadir, "errors.tsv"), "w") as f:
        f.write("index\tkind\txml_line\ttext_line\txml_demangled_line\ttext_nogen_line\tkey\n")
        for n, (e, dl, nl) in enumerate(zip(errors, dlines, nlines), 1):
            f.write("%d\t%s\t%d\t%d\t%d\t%d\t%s\n" % (
                n, e["supp"]["skind"], e["xml_line"], e["text_line"], dl, nl, e["key"]))


# --------------------------------------------------------------------------------------
# mutations
# --------------------------------------------------------------------------------------

LEAK_WORDS = ["definite", "indirect", "possible", "reachable"]
ADDR_SIZES = [1, 2, 4, 8, 16, 32]
VALUE_SIZES = [0, 1, 2, 4, 8, 16, 32]
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"

# Extra known paths for obj: mutations (symlinks that Valgrind does NOT report).
SYMLINK_ALIASES = {
    BUILD_ROOT + "/opt/vendor/lib/libvendor.so.1.2.3": [
        BUILD_ROOT + "/opt/vendor/lib/libvendor.so.1",
        BUILD_ROOT + "/lib/libvendor.so.1",
        BUILD_ROOT + "/lib/libvendor.so",
    ],
    LIBC: ["/lib/x86_64-linux-gnu/libc.so.6"],
}


class Rule:
    __slots__ = ("target", "slug", "kindline", "extra", "frames", "style")

    def __init__(self, target, slug, kindline, extra, frames, style="plain"):
        self.target = target
        self.slug = slug
        self.kindline = kindline
        self.extra = extra  # list of extra lines (0 or 1)
        self.frames = frames
        self.style = style

    def body(self):
        return (self.kindline, tuple(self.extra), tuple(self.frames), self.style)


def inlined_into_next(frames, i):
    """Frame i is (probably) an inline expansion of the IP it shares with frame i+1.
    Same IP and a different function name; recursion repeats IP and name."""
    return (i + 1 < len(frames) and frames[i + 1]["ip"] == frames[i]["ip"]
            and frames[i + 1]["fn"] != frames[i]["fn"])


def interesting_fun_frames(frames):
    """Indices of fun: frames worth wildcard mutations: the top frame, the first frame
    of the user's code below an allocator/interceptor, frames with clone suffixes,
    mangled names, or inlined frames (same IP as the next frame)."""
    picks = []
    for i, fr in enumerate(frames):
        s = fr["s"]
        if not s.startswith("fun:"):
            continue
        name = s[4:]
        special = (
            i == 0
            or re.search(r"\.(isra|constprop|part|cold)\.?\d*", name)
            or name.startswith("_Z")
            or inlined_into_next(frames, i)
        )
        if special:
            picks.append(i)
    if len(picks) < 2:
        for i, fr in enumerate(frames):
            if i not in picks and fr["s"].startswith("fun:") and fr["s"] != "fun:main":
                picks.append(i)
                break
    return sorted(set(picks))[:4]


def fun_variants(name, display):
    """(slug, pattern) pairs for one function name."""
    out = []
    L = len(name)
    if L >= 2:
        out.append(("star-suffix", name[: max(1, L // 2)] + "*"))
        out.append(("star-prefix", "*" + name[L // 2 :]))
    if L >= 4:
        out.append(("star-middle", name[:2] + "*" + name[-2:]))
    out.append(("star-both", "*" + name + "*"))
    out.append(("star-only", "*"))
    out.append(("q-one", name[: L // 2] + "?" + name[L // 2 + 1 :]))
    out.append(("q-all", "?" * L))
    if L > 1:
        out.append(("q-short", "?" * (L - 1)))
    if name.upper() != name:
        out.append(("upper", name.upper()))
    out.append(("extra-char", name + "x"))
    if L > 1:
        out.append(("truncated", name[:-1]))
    if "_" in name:
        out.append(("backslash", name.replace("_", "\\_", 1)))
    out.append(("space-after-colon", " " + name))
    m = re.match(r"^(.*?)(\.(isra|constprop|part|cold)(\.\d+)?)$", name)
    if m:
        base = m.group(1)
        out.append(("no-clone-suffix", base))
        out.append(("no-clone-suffix-star", base + "*"))
        out.append(("clone-q", name[:-1] + "?"))
    if display and display != name and display not in ("???",):
        out.append(("demangled", display))
        d2 = re.sub(r" \[clone [^\]]*\]$", "", display)
        if d2 != display:
            out.append(("demangled-no-clone", d2))
        d3 = re.sub(r"\(.*$", "", d2)
        if d3 and d3 != d2:
            out.append(("demangled-no-args", d3))
            out.append(("demangled-no-args-star", d3 + "*"))
    return out


def obj_variants(obj):
    out = [("obj-full", obj), ("obj-star", "*"), ("obj-basename", os.path.basename(obj)),
           ("obj-dir-star", "*/" + os.path.basename(obj)), ("obj-qqq", "???")]
    b = os.path.basename(obj)
    m = re.match(r"^(lib[^.]*\.so)", b)
    if m:
        out.append(("obj-soname-glob", "*/" + m.group(1) + "*"))
    if "vgpreload" in b:
        out.append(("obj-vgpreload-glob", "*vgpreload_memcheck*"))
    for k, alias in enumerate(SYMLINK_ALIASES.get(obj, [])):
        out.append(("obj-symlink-%d" % k, alias))
    out.append(("obj-upper", obj.upper()))
    return out


def src_variants(fr):
    f, line, d = fr["file"], fr["line"], fr["dir"]
    if f is None:
        return [("src-star-noinfo", "*"), ("src-guess-noinfo", "vg_replace_malloc.c")]
    out = [("src-file", f), ("src-file-line", "%s:%s" % (f, line)),
           ("src-wrong-line", "%s:%d" % (f, int(line) + 1)),
           ("src-star", "*"), ("src-star-line", "*:%s" % line),
           ("src-q-ext", f[:-1] + "?"), ("src-line-junk", "%s:%sx" % (f, line)),
           ("src-line-abc", "%s:abc" % f)]
    if d:
        out.append(("src-with-dir", "%s/%s:%s" % (d, f, line)))
        out.append(("src-with-reldir", "%s/%s" % (os.path.basename(d), f)))
    return out


def wrong_kinds(kind):
    """Other kind names to try, without extra lines."""
    m = re.match(r"^(Addr|Value)(\d+)$", kind)
    if m:
        base, n = m.group(1), int(m.group(2))
        sizes = ADDR_SIZES if base == "Addr" else VALUE_SIZES
        out = ["%s%d" % (base, s) for s in sizes if s != n]
        out.append(("Value" if base == "Addr" else "Addr") + str(n))
        if base == "Value":
            out.append("Cond")
        return out
    return {
        "Cond": ["Value0", "Value1", "Value8", "Addr1", "Jump"],
        "Param": ["Value8", "User"],
        "Overlap": ["Free", "Addr8"],
        "Free": ["Overlap", "Mempool", "Addr4"],
        "FishyValue": ["Value8"],
        "User": ["Param-as-User", "CoreMem", "Addr8"],
        "Jump": ["Addr1", "Value8", "CoreMem"],
        "Leak": ["Free", "Addr8"],
    }.get(kind, ["Addr4"])


# Multi-tool kind lines (prefix before the kind).
MULTI_TOOLS = [
    ("tools-mc-hg", "Memcheck,Helgrind:"),
    ("tools-hg-mc", "Helgrind,Memcheck:"),
    ("tools-mc-drd", "Memcheck,drd:"),
    ("tools-leading-comma", ",Memcheck:"),
    ("tools-hg-only", "Helgrind:"),
    ("tools-space-after-comma", "Helgrind, Memcheck:"),
    ("tools-mcx-first", "MemcheckX,Memcheck:"),
    ("tools-mcx-second", "Memcheck,MemcheckX:"),
    ("tools-drd-upper", "DRD,Memcheck:"),
    ("tools-three", "drd,Helgrind,Memcheck:"),
    ("tools-empty", ":"),
]
# The ones that name Memcheck as a tool (used in combinations).
MULTI_TOOLS_MATCHING = [t for t in MULTI_TOOLS if t[0] in (
    "tools-mc-hg", "tools-hg-mc", "tools-leading-comma", "tools-three", "tools-mcx-first")]

# Rules derived from each baseline error (at least; combinations fill up to this).
RULES_PER_ERROR = 200


def below_main_tails(exe_obj):
    """(slug, frames appended after fun:main)."""
    return [
        ("below-main", ["fun:(below main)"]),
        ("below-main-raw", ["fun:__libc_start_call_main"]),
        ("below-main-libc-glob", ["obj:*libc.so*"]),
        ("below-main-libc-full", ["obj:" + LIBC]),
        ("below-main-libc-symlink", ["obj:/lib/x86_64-linux-gnu/libc.so.6"]),
        ("below-main-chain", ["fun:(below main)", "fun:__libc_start_main@@GLIBC_2.34",
                              "fun:(below main)"]),
        ("below-main-unversioned", ["fun:(below main)", "fun:__libc_start_main"]),
        ("below-main-version-glob", ["fun:(below main)", "fun:__libc_start_main*"]),
        ("below-main-start", ["fun:(below main)", "fun:__libc_start_main@@GLIBC_2.34",
                              "fun:_start"]),
        ("below-main-src", ["src:libc_start_call_main.h"]),
        ("below-main-src-line", ["src:libc_start_call_main.h:58"]),
        ("below-main-exe", ["fun:(below main)", "fun:__libc_start_main@@GLIBC_2.34",
                            "obj:" + (exe_obj or "???")]),
        ("below-main-junk", ["fun:(below main)", "fun:__libc_start_main@@GLIBC_2.34",
                             "fun:(below main)", "obj:???", "obj:???"]),
        ("below-main-junk-plus-one", ["fun:(below main)",
                                      "fun:__libc_start_main@@GLIBC_2.34",
                                      "fun:(below main)", "obj:???", "obj:???",
                                      "obj:*"]),
    ]


class Gen:
    def __init__(self, prog, errors):
        self.prog = prog
        self.errors = errors
        self.rules = []
        self.seen = {}
        self.fatal_done = set()
        self.count = {}  # target error -> rules derived from it
        self.no_lookup = {}  # error index -> frame positions with src_lookup "(none)"
        self.inputs = None  # build_inputs(), when inputs.tsv's sources are there
        self.rejected = 0

    def undefined(self, r):
        """True when the model says that matching rule r against some baseline error
        would reach a src: line at a position past the error's IP array: undefined in
        3.19 (it reads past the array), so such rules are not generated."""
        st, supp = model_load(self.render(0, r, self.errors[r.target - 1]))
        if st != "ok":
            return False
        return any(model_stack(supp["frames"], inp)[1] for inp in self.inputs)

    def add(self, target, slug, kindline, extra, frames, style="plain"):
        r = Rule(target, slug, kindline, list(extra), list(frames), style)
        b = r.body()
        if b in self.seen:
            return
        self.seen[b] = r
        if self.inputs is not None and self.undefined(r):
            self.rejected += 1
            return
        self.rules.append(r)
        self.count[target] = self.count.get(target, 0) + 1

    def once(self, tag):
        """True the first time a program-wide tag is asked for (used to keep only a
        few FATAL rules per program)."""
        if tag in self.fatal_done:
            return False
        self.fatal_done.add(tag)
        return True

    def gen_error(self, idx, e):
        s = e["supp"]
        tool, kind = s["skind"].split(":", 1)
        kl = s["skind"]
        extra = [s["skaux"]] if s["skaux"] is not None else []
        F = list(s["sframes"])
        n = len(F)
        frames = [dict(fr, s=F[k]) for k, fr in enumerate(e["frames"])]
        add = lambda slug, fr, kline=kl, ex=None, style="plain": self.add(
            idx, slug, kline, extra if ex is None else ex, fr, style)

        # -- exact, prefixes, not-from-top --------------------------------------------
        add("exact", F)
        for k in range(1, n):
            add("prefix-%d" % k, F[:k])
        if n > 1:
            add("skip-top", F[1:])
            if n > 2:
                add("skip-top-2", F[2:])

        # -- frame wildcard ... ---------------------------------------------------------
        m = n // 2
        add("dots-start", ["..."] + F)
        add("dots-end", F + ["..."])
        if n > 1:
            add("dots-middle", F[:m] + ["..."] + F[m:])
            add("dots-double-middle", F[:m] + ["...", "..."] + F[m:])
        add("dots-double-start", ["...", "..."] + F)
        add("dots-everywhere", [x for f in F for x in ("...", f)] + ["..."])
        add("dots-last-only", ["...", F[-1]])
        add("dots-wrong-fun", ["...", "fun:no_such_function_xyz"])
        add("dots-then-wrong", F[:1] + ["...", "fun:no_such_function_xyz"])
        # positional: every frame position
        for i in range(n):
            add("dots-replace-%d" % i, F[:i] + ["..."] + F[i + 1 :])
            add("dots-before-%d" % i, F[:i] + ["..."] + F[i:])
            if i > 0:
                add("dots-then-from-%d" % i, ["..."] + F[i:])
            # the suppression must stop matching at frame i
            add("wrong%d-name" % i, F[:i] + ["fun:no_such_function_xyz"] + F[i + 1 :])
            if i > 0:
                add("wrong%d-name-dots" % i, F[:i] + ["...", "fun:no_such_function_xyz"])

        # -- fun: wildcards and name forms, every fun: frame ------------------------------
        subs = self.position_subs(frames, F, self.no_lookup.get(idx, set()))
        for i in range(n):
            for slug, line in subs[i]:
                add(slug, F[:i] + [line] + F[i + 1 :])

        # all-obj / all-src
        add("all-obj-star", ["obj:*"] * n)
        add("all-obj-full", ["obj:" + (fr["obj"] or "???") for fr in frames])
        if any(fr["file"] for fr in frames):
            add("all-src-line", ["src:%s:%s" % (fr["file"], fr["line"]) if fr["file"] else "src:*"
                                 for fr in frames])
            add("all-src-file", ["src:%s" % fr["file"] if fr["file"] else "obj:*" for fr in frames])
            add("all-src-star", ["src:*"] * n)

        # -- kind line ----------------------------------------------------------------------
        for wk in wrong_kinds(kind):
            if wk == "Param-as-User":
                add("kind-Param", F, "%s:Param" % tool, ["write(buf)"])
                continue
            add("kind-%s" % wk, F, "%s:%s" % (tool, wk), [])
        if kind != "Leak":
            add("kind-Leak", F, "%s:Leak" % tool, [])
        add("tool-lowercase", F, "memcheck:" + kind)
        add("tool-space-before-colon", F, "Memcheck :" + kind)
        if self.once("kind-space-after-colon"):
            add("kind-space-after-colon", F, "Memcheck: " + kind)
        if self.once("kind-lowercase") and kind.lower() != kind:
            add("kind-lowercase", F, "Memcheck:" + kind.lower())

        # -- multi-tool lines ----------------------------------------------------------------
        for slug, prefix in MULTI_TOOLS:
            add(slug, F, prefix + kind)

        # -- stack depth: below main and beyond the recorded stack ---------------------------
        # The matcher sees up to --num-callers IPs (inline-expanded), including frames
        # below main that the log hides. On this system a stack ending in main has 5
        # more: (below main) [__libc_start_call_main], __libc_start_main@@GLIBC_2.34,
        # (below main) [_start] and two junk IPs (unknown object). So F + k * obj:*
        # should match up to k = min(5, 12 - IPs shown) and fail above.
        # Same IP on consecutive frames is an inline expansion or a recursion; the
        # two cannot be told apart from the log, so try both boundaries.
        ips_hi = n
        ips_lo = len([k for k in range(n) if k == 0 or frames[k]["ip"] != frames[k - 1]["ip"]])
        below_n = 5 if F[-1] == "fun:main" else 0
        bounds = {max(0, min(below_n, 12 - ips_hi)), max(0, min(below_n, 12 - ips_lo))}
        for k in sorted({b + d for b in bounds for d in (0, 1)} - {0}):
            add("beyond-obj-star-%d" % k, F + ["obj:*"] * k)
        tails = []
        if F[-1] == "fun:main":
            below = below_main_tails(frames[-1]["obj"])
            for slug, tail in below:
                add(slug, F + tail)
            add("main-then-below", ["...", "fun:main", "fun:(below main)"])
            tails = below
        else:
            add("beyond-fun-star", F + ["fun:*"])
            tails = [("beyond-fun-star", ["fun:*"])]

        # -- kind specific extra lines --------------------------------------------------------
        extras = []  # (slug, extra lines) that keep the target suppressed, for combinations
        if kind == "Leak":
            own = s["skaux"].split(":", 1)[1].strip()
            sets = [[w] for w in LEAK_WORDS]
            sets += [[a, b] for ai, a in enumerate(LEAK_WORDS) for b in LEAK_WORDS[ai + 1 :]]
            sets += [[w for w in LEAK_WORDS if w != x] for x in LEAK_WORDS]
            for st in sets:
                add("mlk-" + "-".join(st), F, kl, ["match-leak-kinds: " + ",".join(st)])
                if own in st and len(st) > 1:
                    extras.append(("mlk-" + "-".join(st), ["match-leak-kinds: " + ",".join(st)]))
            add("mlk-all", F, kl, ["match-leak-kinds: all"])
            add("mlk-none", F, kl, ["match-leak-kinds: none"])
            add("mlk-absent", F, kl, [])
            extras += [("mlk-all", ["match-leak-kinds: all"]), ("mlk-absent", [])]
            syn = [("mlk-empty-items", "match-leak-kinds: ,,%s," % own),
                   ("mlk-tab", "match-leak-kinds:\t%s" % own),
                   ("mlk-nospace", "match-leak-kinds:%s" % own),
                   ("mlk-all-four", "match-leak-kinds: " + ",".join(reversed(LEAK_WORDS)))]
            for slug, line in syn:
                add(slug, F, kl, [line])
            if self.once("mlk-fatal-space"):
                add("mlk-fatal-space-in-list", F, kl, ["match-leak-kinds: %s, possible" % own])
            if self.once("mlk-fatal-case"):
                add("mlk-fatal-capital", F, kl, ["match-leak-kinds: " + own.capitalize()])
            if self.once("mlk-fatal-all-combo"):
                add("mlk-fatal-all-combined", F, kl, ["match-leak-kinds: all," + own])
            # only the allocator frame: matches every record from that allocator
            add("alloc-only-any-kind", F[:1], kl, [])
            add("alloc-only-own-kind", F[:1], kl, extra)
        elif kind == "Param":
            p = s["skaux"]
            syscall = p.split("(", 1)[0]
            add("param-wildcard", F, kl, [syscall + "(*)"])
            add("param-star", F, kl, ["*"])
            add("param-upper", F, kl, [p[0].upper() + p[1:]])
            add("param-trailing-space", F, kl, [p + " "])
            add("param-leading-space", F, kl, ["  " + p])
            extras += [("param-wildcard", [syscall + "(*)"]), ("param-leading-space", ["  " + p])]
            for other in ("write(buf)", "write(count)", "openat(filename)", "read(buf)"):
                if other != p:
                    add("param-other-" + other.replace("(", "-").rstrip(")"), F, kl, [other])
            add("param-src-line", F, kl, ["src:basic.c"])
            if self.once("param-fatal-missing"):
                add("param-fatal-missing", F, kl, [])
        elif kind == "FishyValue":
            p = s["skaux"]
            fn, arg = p.split("(", 1)
            arg = arg.rstrip(")")
            add("fishy-junk-after", F, kl, [p + "junk"])
            add("fishy-wrong-arg", F, kl, ["%s(sz)" % fn])
            add("fishy-wrong-fn", F, kl, ["%s(%s)" % ("calloc" if fn != "calloc" else "malloc", arg)])
            add("fishy-star-arg", F, kl, ["%s(*)" % fn])
            add("fishy-star-fn", F, kl, ["*(%s)" % arg])
            add("fishy-space", F, kl, ["%s (%s)" % (fn, arg)])
            add("fishy-other-real", F, kl, ["calloc(nmemb)" if p != "calloc(nmemb)" else "realloc(size)"])
            extras += [("fishy-junk-after", [p + "junk"]), ("fishy-star-arg", ["%s(*)" % fn])]
            if self.once("fishy-fatal-unclosed"):
                add("fishy-fatal-unclosed", F, kl, ["%s(%s" % (fn, arg)])

        # -- layout variants -----------------------------------------------------------------
        add("layout-trailing-ws", F, style="trailing-ws")
        add("layout-tabs", F, style="tabs")
        add("layout-crlf", F, style="crlf")
        if self.once("only-dots"):
            add("fatal-only-dots", ["..."])
        if self.once("core-kind"):
            add("fatal-core-tool", F, "core:" + kind)

        # -- dedup: the hidden second occurrence --------------------------------------------
        if "fun:dedup_first_caller" in F:
            i = F.index("fun:dedup_first_caller")
            add("dedup-second-caller", F[:i] + ["fun:dedup_second_caller"] + F[i + 1 :])
            add("dedup-second-caller-dots", ["...", "fun:dedup_second_caller"])
            add("dedup-first-caller-dots", ["...", "fun:dedup_first_caller"])
            add("dedup-top4", F[:4])

        # -- combinations, until the error has RULES_PER_ERROR rules of its own -------------
        self.combine(idx, F, kl, subs, tails, extras, add)

    def gen_appended(self, idx, e):
        """Families added after the first recording (numbered after every earlier case).

        `lineobj*`: obj: patterns on frames that a text log prints with a source line
        (`fn (file.c:12)`), which hides their object (the XML log shows it). A matcher
        must infer such objects (or stay undecided), so these cases try, at every such
        frame, another object of the program, globs that match several objects (the
        shape of real rules: `*/lib*.so*`, `*/lib*/lib*.so.*`) and the object's
        directory; and, per error, the object patterns after a leading `...` (matched
        against any frame, including the ones below main that the log hides)."""
        s = e["supp"]
        kl = s["skind"]
        extra = [s["skaux"]] if s["skaux"] is not None else []
        F = list(s["sframes"])
        n = len(F)
        add = lambda slug, fr: self.add(idx, slug, kl, extra, fr)
        objs = sorted({fr["obj"] for err in self.errors for fr in err["frames"] if fr["obj"]})
        line_objs = []
        for i, fr in enumerate(e["frames"]):
            if fr["file"] is None or fr["obj"] is None:
                continue
            if fr["obj"] not in line_objs:
                line_objs.append(fr["obj"])
            other = next((o for o in objs if o != fr["obj"]), None)
            pats = [("other-full", other), ("lib-glob", "*/lib*.so*"),
                    ("versioned-glob", "*/lib*/lib*.so.*"),
                    ("dir-glob", os.path.dirname(fr["obj"]) + "/*")]
            for slug, pat in pats:
                if pat is not None:
                    add("lineobj%d-%s" % (i, slug), F[:i] + ["obj:" + pat] + F[i + 1:])
        if not line_objs:
            return
        anywhere = [("obj-full-%d" % k, o) for k, o in enumerate(line_objs)]
        anywhere += [("versioned-glob", "*/lib*/lib*.so.*"), ("lib-glob", "*/lib*.so*")]
        others = [o for o in objs if o not in line_objs]
        if others:
            anywhere.append(("other-full", others[0]))
        for slug, pat in anywhere:
            add("lineobj-dots-%s" % slug, ["...", "obj:" + pat])
            if n > 1:
                add("lineobj-top-dots-%s" % slug, F[:1] + ["...", "obj:" + pat])

    def position_subs(self, frames, F, no_lookup):
        """Per frame position, the (slug, line) single-frame substitutions: fun: forms
        (fun frames), fun: forms for ??? frames (objframe*), obj: forms, src: forms.
        No src: forms at positions in no_lookup: there 3.19 would look up an IP past
        the error's IP array (undefined; inputs.tsv says "(none)")."""
        out = []
        for i, fr in enumerate(frames):
            vs = []
            if F[i].startswith("fun:"):
                name = F[i][4:]
                for slug, pat in fun_variants(name, fr.get("display")):
                    vs.append(("fun%d-%s" % (i, slug), "fun:" + pat))
            else:
                vs.append(("objframe%d-fun-qqq" % i, "fun:???"))
                vs.append(("objframe%d-fun-star" % i, "fun:*"))
                vs.append(("objframe%d-fun-q3" % i, "fun:?*"))
                if "libblob" in (fr["obj"] or ""):
                    vs.append(("objframe%d-fun-hidden-name" % i,
                               "fun:blob_scribble" if i == 0 else "fun:blob_stage"))
            if fr["obj"] is None:
                vs.append(("obj%d-qqq" % i, "obj:???"))
                vs.append(("obj%d-star" % i, "obj:*"))
            else:
                for slug, pat in obj_variants(fr["obj"]):
                    vs.append(("obj%d-%s" % (i, slug[4:]), "obj:" + pat))
            for slug, pat in ([] if i in no_lookup else src_variants(fr)):
                vs.append(("src%d-%s" % (i, slug[4:]), "src:" + pat))
            out.append(vs)
        return out

    def combine(self, idx, F, kl, subs, tails, extras, add):
        """Two-position combinations (a glob/obj/src form at i and another form or `...`
        at j), a form plus a stack tail, a form plus a multi-tool line or extra line.
        Deterministic order; stops at RULES_PER_ERROR rules derived from this error."""
        n = len(F)
        core_slugs = ("star-suffix", "star-prefix", "star-middle", "q-one", "star-only",
                      "q-all", "extra-char", "fun-qqq", "fun-star", "obj-full", "obj-star",
                      "obj-dir-star", "obj-basename", "obj-qqq", "obj-soname-glob",
                      "src-file", "src-file-line", "src-wrong-line", "src-star",
                      "src-star-noinfo", "src-with-dir", "qqq", "star")
        core = []
        for i in range(n):
            # fun:, obj: and src: forms alternate
            groups = {"fun": [], "obj": [], "src": []}
            for slug, line in subs[i]:
                short = slug.split("-", 1)[1]
                kind_ = slug[: len(slug) - len(slug.lstrip("abcdefghijklmnopqrstuvwxyz"))]
                key = short if kind_ == "fun" or kind_ == "objframe" else kind_ + "-" + short
                if key in core_slugs:
                    groups["fun" if kind_ == "objframe" else kind_].append((slug, line))
            c = []
            for k in range(max(len(g) for g in groups.values())):
                for g in ("fun", "obj", "src"):
                    if k < len(groups[g]):
                        c.append(groups[g][k])
            core.append(c)
        # Each candidate carries a sort key: the sum of the ranks of its two parts
        # first, so that the forms vary before any one form is combined with
        # everything (a diagonal walk; stable sort, deterministic).
        pairs, inserts, tailc, headc, extrac = [], [], [], [], []
        for i in range(n):
            for r, (sa, la) in enumerate(core[i]):
                for j in range(n):
                    if j == i:
                        continue
                    fr = list(F)
                    fr[i] = la
                    fr[j] = "..."
                    pairs.append(((r, r, i, j), "%s+dots-replace-%d" % (sa, j), fr, kl, None))
                    fr2 = list(F)
                    fr2[i] = la
                    fr2.insert(j, "...")
                    inserts.append(((r, i, j), "%s+dots-before-%d" % (sa, j), fr2, kl, None))
                    if j > i:
                        for r2, (sb, lb) in enumerate(core[j]):
                            fr3 = list(F)
                            fr3[i] = la
                            fr3[j] = lb
                            pairs.append(((r + r2 + 1, r, i, j), "%s+%s" % (sa, sb), fr3, kl, None))
                fr4 = list(F)
                fr4[i] = la
                for t, (st, tail) in enumerate([("dots-end", ["..."])] + tails):
                    tailc.append(((r + t, r, i), "%s+%s" % (sa, st), fr4 + tail, kl, None))
                for h, (st, prefix) in enumerate(MULTI_TOOLS_MATCHING):
                    headc.append(((r + h, r, i), "%s+%s" % (sa, st), fr4,
                                  prefix + kl.split(":", 1)[1], None))
                for x, (st, ex) in enumerate(extras):
                    extrac.append(((r + x, r, i), "%s+%s" % (sa, st), fr4, kl, ex))
        for t, (st, tail) in enumerate(tails):
            for h, (st2, prefix) in enumerate(MULTI_TOOLS_MATCHING):
                headc.append(((t + h, 1000, 0), "%s+%s" % (st, st2), F + tail,
                              prefix + kl.split(":", 1)[1], None))
            for x, (st2, ex) in enumerate(extras):
                extrac.append(((t + x, 1000, 0), "%s+%s" % (st, st2), F + tail, kl, ex))
        fams = []
        for fam in (pairs, inserts, tailc, headc, extrac):
            fam.sort(key=lambda c: c[0])
            fams.append([c[1:] for c in fam])
        pos = [0] * len(fams)
        while self.count.get(idx, 0) < RULES_PER_ERROR and any(p < len(f) for p, f in zip(pos, fams)):
            for k, fam in enumerate(fams):
                if pos[k] < len(fam) and self.count.get(idx, 0) < RULES_PER_ERROR:
                    slug, fr, kline, ex = fam[pos[k]]
                    pos[k] += 1
                    add("combo-" + slug, fr, kline, ex)

    def render(self, num, r, e):
        name = rule_name("%04d" % num, r.slug)
        lines = [
            "# vgsupp match rule %04d (%s)" % (num, self.prog),
            "# target: error %d (%s) %s" % (r.target, e["supp"]["skind"], e["key"].split("|")[2].split(";")[0]),
            "# mutation: %s" % r.slug,
        ]
        ind = "\t" if r.style == "tabs" else "   "
        ws = " \t " if r.style == "trailing-ws" else ""
        lines.append("{")
        lines.append(ind + name + ws)
        lines.append(ind + r.kindline + ws)
        for x in r.extra:
            lines.append(ind + x + ws)
        for f in r.frames:
            lines.append(ind + f + ws)
        lines.append("}")
        eol = "\r\n" if r.style == "crlf" else "\n"
        return eol.join(lines) + eol


def cmd_mutate(datadir, prog, keep_existing=False):
    errors = load_baseline(datadir)
    g = Gen(prog, errors)
    ipath = os.path.join(datadir, "inputs.tsv")
    if os.path.exists(os.path.join(datadir, "input-noinline.xml")):
        g.inputs = build_inputs(datadir)
    if os.path.exists(ipath):
        with open(ipath) as f:
            next(f)
            for line in f:
                c = line.rstrip("\n").split("\t")
                if c[8] == "(none)":
                    g.no_lookup.setdefault(int(c[0]), set()).add(int(c[1]))
    for idx, e in enumerate(errors, 1):
        g.gen_error(idx, e)
    base = len(g.rules)
    # Families added after the first recording come last, so that the numbers (and
    # recorded verdicts) of the earlier cases stay what they were.
    for idx, e in enumerate(errors, 1):
        g.gen_appended(idx, e)
    cases = [("%04d" % num, g.render(num, r, errors[r.target - 1]).encode())
             for num, r in enumerate(g.rules, 1)]
    path = os.path.join(datadir, "rules.supp")
    if keep_existing:
        old = read_cases(path)
        new = dict(cases)
        changed = [n for n, body in old if new.get(n) != body]
        if changed:
            sys.exit("vgmatch mutate %s: %d existing cases would change (first: %s); "
                     "new cases may only be appended" % (datadir, len(changed), changed[0]))
        print("%s: %d new cases appended" % (prog, len(cases) - len(old)))
    write_cases(path, cases)
    per = sorted(g.count.get(i, 0) for i in range(1, len(errors) + 1))
    print("%s: %d errors, %d rule cases (per error: min %d, median %d, max %d; %d appended); "
          "%d rejected (src: past the IP array)" % (
              prog, len(errors), len(g.rules), per[0], per[len(per) // 2], per[-1],
              len(g.rules) - base, g.rejected))


def cmd_split(datadir, outdir, new_only=False):
    """One file per case: each Valgrind rule run loads exactly one case, so a FATAL case
    only refuses its own run and every verdict is about that case alone."""
    done = verdict_rows(datadir) if new_only else {}
    os.makedirs(outdir, exist_ok=True)
    n = 0
    for num, body in read_cases(os.path.join(datadir, "rules.supp")):
        if num in done:
            continue
        with open(os.path.join(outdir, num + ".supp"), "wb") as f:
            f.write(body)
        n += 1
    print("%s: %d case files" % (datadir, n), file=sys.stderr)


def cmd_sample(recdir, k, outdir):
    """The live mode's deterministic sample of the recorded cases: every FATAL case and
    every case numbered 1, 1+K, 1+2K, ..."""
    k = int(k)
    fatal = {r for r, rows in verdict_rows(recdir).items() if any(v == "fatal" for _, v in rows)}
    cases = [(num, body) for num, body in read_cases(os.path.join(recdir, "rules.supp"))
             if num in fatal or (int(num) - 1) % k == 0]
    os.makedirs(outdir, exist_ok=True)
    write_cases(os.path.join(outdir, "rules.supp"), cases)


# --------------------------------------------------------------------------------------
# verdicts
# --------------------------------------------------------------------------------------


# Reruns of a rule whose run is inconsistent with the baseline (see judge_run).
RERUNS = 2
RECORD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                             "scripts", "record-match-verdicts.sh")


def judge_run(r, name, base, errors, keys):
    """(rows, problems) of the run of case r (record name `name`): RUNDIR/r.{xml,err,rc}."""
    rows, problems = [], []
    with open(base + ".rc") as f:
        rc = int(f.read().strip() or "-1")
    with open(base + ".err", "rb") as f:
        err = f.read().decode("utf-8", "replace")
    if "FATAL: in suppressions file" in err:
        if rc != 1:
            problems.append("%s: FATAL with exit status %d" % (r, rc))
        for n in range(1, len(errors) + 1):
            rows.append("%s\t%d\tfatal" % (r, n))
        return rows, problems
    if rc != 0:
        problems.append("%s: exit status %d: %s" % (r, rc, err.strip().splitlines()[-1:] or ""))
        return rows, problems
    got, _, suppcounts = parse_xml_errors(base + ".xml")
    gotkeys = [error_key(g) for g in got]
    extra = [k for k in gotkeys if k not in keys]
    if extra:
        problems.append("%s: errors not in the baseline: %s" % (r, extra))
    present = set(gotkeys)
    expected_count = 0
    for n, k in enumerate(keys, 1):
        sup = 0 if k in present else 1
        if sup:
            expected_count += errors[n - 1]["count"]
        rows.append("%s\t%d\t%d" % (r, n, sup))
    # order of the remaining errors must be the baseline order
    order = [keys.index(k) for k in gotkeys if k in keys]
    if order != sorted(order):
        problems.append("%s: errors out of baseline order" % r)
    cnt = suppcounts.get(name, 0)
    others = {k: v for k, v in suppcounts.items() if k != name}
    if others:
        problems.append("%s: unexpected suppcounts %s" % (r, others))
    if cnt != expected_count:
        problems.append("%s: suppcounts of %s says %d, baseline errors account for %d" % (
            r, name, cnt, expected_count))
    return rows, problems


def cmd_verdicts(datadir, rundir, merge=False):
    """Rows of verdicts.tsv from the rule runs (one per case file RUNDIR/rules/NNNN.supp),
    with the consistency checks. A run that fails a check (other than a FATAL rule) is run
    again, up to RERUNS times, through the script's --worker mode: Valgrind's leak check
    is rarely not deterministic (a loss record reported with another leak kind, see
    README "Surprises"). Each rerun is reported on stderr; the verdicts come from the
    first consistent run, and a rule still inconsistent after the reruns is an error.
    With merge, the rows of rules that did not run here are kept."""
    errors = load_baseline(datadir)
    keys = [e["key"] for e in errors]
    cdir = os.path.join(rundir, "rules")
    rules = sorted(f[:-5] for f in os.listdir(cdir) if f.endswith(".supp"))
    run = os.path.dirname(os.path.abspath(rundir))
    prog = os.path.basename(os.path.abspath(rundir))
    rows = []
    problems = []
    for r in rules:
        with open(os.path.join(cdir, r + ".supp"), "rb") as f:
            name = rule_name(r, case_slug(f.read()))
        base = os.path.join(rundir, r)
        rr, pp = judge_run(r, name, base, errors, keys)
        tries = 0
        while pp and not any("FATAL with exit status" in p for p in pp) and tries < RERUNS:
            tries += 1
            print("vgmatch verdicts %s: rule %s: inconsistent run, running it again (%d of %d): %s"
                  % (datadir, r, tries, RERUNS, "; ".join(pp)), file=sys.stderr)
            subprocess.run(["bash", RECORD_SCRIPT, "--worker", run, prog, r], check=True)
            rr, pp = judge_run(r, name, base, errors, keys)
            if not pp:
                print("vgmatch verdicts %s: rule %s: consistent on run %d" % (datadir, r, tries + 1),
                      file=sys.stderr)
        rows += [(r, int(row.split("\t")[1]), row.split("\t")[2]) for row in rr]
        problems += pp
    if merge:
        ran = set(rules)
        for r, old in verdict_rows(datadir).items():
            if r not in ran:
                rows += [(r, e, v) for e, v in old]
    rows.sort(key=lambda row: (row[0], row[1]))
    with open(os.path.join(datadir, "verdicts.tsv"), "w") as f:
        f.write("rule\terror_index\tsuppressed\n")
        for r, e, v in rows:
            f.write("%s\t%d\t%s\n" % (r, e, v))
    if problems:
        for p in problems:
            print("vgmatch verdicts %s: %s" % (datadir, p), file=sys.stderr)
        sys.exit(1)


# --------------------------------------------------------------------------------------
# matcher input (hidden frames below main, IPs)
# --------------------------------------------------------------------------------------

BELOW_MAIN_EXACT = {"__libc_start_main", "__libc_start_call_main", "_start"}


def below_main_name(raw):
    """Valgrind's renaming of below-main functions (VG_(get_fnname_kind), Linux)."""
    if raw is None:
        return None
    if raw in BELOW_MAIN_EXACT or raw.startswith("__libc_start_main.") \
            or raw == "generic_start_main" or raw.startswith("generic_start_main."):
        return "(below main)"
    return raw


def build_inputs(datadir):
    """Per baseline error, the frame sequence the matcher sees, reconstructed from
    input.xml (--show-below-main=yes: every recorded IP, inline-expanded, raw names)
    and input-noinline.xml (--show-below-main=yes --read-inline-info=no: one frame per
    recorded IP, with the line-table location Valgrind's src: lookup uses)."""
    errors = load_baseline(datadir)
    a, _, _ = parse_xml_errors(os.path.join(datadir, "input.xml"))
    b, _, _ = parse_xml_errors(os.path.join(datadir, "input-noinline.xml"))
    if not (len(a) == len(b) == len(errors)):
        sys.exit("vgmatch inputs %s: error counts differ: %d %d %d" % (datadir, len(errors), len(a), len(b)))
    out = []
    for n, (e, ea, eb) in enumerate(zip(errors, a, b), 1):
        fa, ips = ea["frames"], eb["frames"]
        # printed frames must be a prefix of the full input
        for k, fr in enumerate(e["frames"]):
            if k >= len(fa) or fa[k]["ip"] != fr["ip"] or below_main_name(fa[k]["fn"]) != fr["fn"]:
                sys.exit("vgmatch inputs %s: error %d frame %d differs from the baseline" % (datadir, n, k))
        # group the expanded frames by IP
        runs_a = []
        for fr in fa:
            if runs_a and runs_a[-1][0] == fr["ip"]:
                runs_a[-1][1].append(fr)
            else:
                runs_a.append([fr["ip"], [fr]])
        runs_b = []
        for k, fr in enumerate(ips):
            if runs_b and runs_b[-1][0] == fr["ip"]:
                runs_b[-1][1] += 1
            else:
                runs_b.append([fr["ip"], 1])
        if [r[0] for r in runs_a] != [r[0] for r in runs_b]:
            sys.exit("vgmatch inputs %s: error %d: IP sequences differ" % (datadir, n))
        frames = []
        ip_index = 0
        for (ip, frs), (_, cnt) in zip(runs_a, runs_b):
            if len(frs) % cnt:
                sys.exit("vgmatch inputs %s: error %d: %d frames for %d IPs %s" % (datadir, n, len(frs), cnt, ip))
            per = len(frs) // cnt
            for k, fr in enumerate(frs):
                frames.append(dict(fr, ip_index=ip_index + k // per, fn=below_main_name(fr["fn"])))
            ip_index += cnt
        out.append({"frames": frames, "ips": ips, "error": e})
    return out


def cmd_inputs(datadir):
    with open(os.path.join(datadir, "inputs.tsv"), "w") as f:
        f.write("error_index\tframe\tip_index\tip\tfun\tobj\tfile\tline\tsrc_lookup\n")
        for n, inp in enumerate(build_inputs(datadir), 1):
            ips = inp["ips"]
            for j, fr in enumerate(inp["frames"]):
                # 3.19 quirk: src: patterns are compared with the location of ips[j]
                # (j = expanded frame index), not of the frame's own IP.
                if j < len(ips):
                    look = "%s:%s" % (ips[j]["file"], ips[j]["line"]) if ips[j]["file"] else "-"
                else:
                    look = "(none)"
                f.write("%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n" % (
                    n, j, fr["ip_index"], fr["ip"], fr["fn"] if fr["fn"] is not None else "???",
                    fr["obj"] if fr["obj"] is not None else "???",
                    fr["file"] if fr["file"] is not None else "-",
                    fr["line"] if fr["line"] is not None else "-", look))


# --------------------------------------------------------------------------------------
# a model of the 3.19 loader and matcher (valgrind-semantics.md sections 1-2), used to
# cross-check the recorded verdicts
# --------------------------------------------------------------------------------------

MC_KINDS = {"Value1", "Value2", "Value4", "Value8", "Value16", "Value32", "Cond", "Value0",
            "Addr1", "Addr2", "Addr4", "Addr8", "Addr16", "Addr32", "Jump", "Param", "User",
            "Free", "Overlap", "Leak", "Mempool", "CoreMem", "FishyValue"}


def tool_name_present(name, tools):
    i = tools.find(name)
    if i < 0:
        return False
    j = i + len(name)
    return (i == 0 or tools[i - 1] == ",") and (j == len(tools) or tools[j] == ",")


def is_location_line(line):
    return line.startswith("fun:") or line.startswith("obj:") or line == "..."


def model_load(text, num_callers=12):
    """Return ('fatal', msg) | ('skip', None) | ('ok', supp) for a one-record file."""
    lines = []
    for raw in text.split("\n"):
        t = raw.strip(" \t\n\v\f\r")
        if not t or t.startswith("#"):
            continue
        lines.append(t)
    if not lines or lines[0] != "{":
        return ("fatal", "expected '{'")
    if len(lines) < 3 or lines[1] == "}":
        return ("fatal", "unexpected '}'")
    kl = lines[2]
    if ":" not in kl:
        return ("fatal", "malformed tool:kind")
    tools, kind = kl.split(":", 1)
    rest = lines[3:]
    if tool_name_present("core", tools):
        return ("fatal", "unknown core suppression type")
    if not tool_name_present("Memcheck", tools):
        return ("skip", None)
    if kind not in MC_KINDS:
        return ("fatal", "unknown tool suppression type")
    supp = {"kind": kind, "extra": None}
    if kind == "Param":
        if not rest or is_location_line(rest[0]):
            return ("fatal", "bad or missing extra suppression info")
        supp["extra"] = rest.pop(0)
    elif kind == "Leak":
        if rest and not is_location_line(rest[0]):
            x = rest.pop(0)
            if not x.startswith("match-leak-kinds:"):
                return ("fatal", "bad or missing extra suppression info")
            items = [w for w in x[len("match-leak-kinds:"):].lstrip(" \t").split(",") if w != ""]
            if not items:
                return ("fatal", "bad match-leak-kinds")
            if any(w not in ("definite", "indirect", "possible", "reachable", "all", "none") for w in items):
                return ("fatal", "bad match-leak-kinds")
            if ("all" in items or "none" in items) and len(items) > 1:
                return ("fatal", "bad match-leak-kinds")
            if items == ["all"]:
                supp["extra"] = set(LEAK_WORDS)
            elif items == ["none"]:
                supp["extra"] = set()
            else:
                supp["extra"] = set(items)
        else:
            supp["extra"] = set(LEAK_WORDS)
    elif kind == "FishyValue":
        if rest and not is_location_line(rest[0]):
            x = rest.pop(0)
            if "(" not in x:
                return ("fatal", "bad or missing extra suppression info")
            fn, arg = x.split("(", 1)
            if ")" not in arg:
                return ("fatal", "bad or missing extra suppression info")
            supp["extra"] = (fn, arg.split(")", 1)[0])
    frames = []
    while True:
        if not rest:
            return ("fatal", "unexpected end-of-file")
        x = rest.pop(0)
        if x == "}":
            break
        if frames and len(frames) >= num_callers:
            # drop the rest up to '}' without validation
            while rest and rest[0] != "}":
                rest.pop(0)
            continue
        if x == "...":
            frames.append(("dots", None))
        elif x[:4] in ("fun:", "obj:", "src:"):
            frames.append((x[:3], x[4:]))
        else:
            return ("fatal", "location should be ...")
    if not frames:
        return ("fatal", "missing stack trace")
    if all(f[0] == "dots" for f in frames):
        return ("fatal", "must contain at least one location line which is not '...'")
    supp["frames"] = frames
    return ("ok", supp)


def string_match(pat, s):
    """VG_(string_match): whole-string glob with * and ?, no escapes."""
    if "*" not in pat and "?" not in pat:
        return pat == s
    memo = {}

    def go(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(pat):
            r = j == len(s)
        elif pat[i] == "*":
            r = go(i + 1, j) or (j < len(s) and go(i, j + 1))
        elif j < len(s) and (pat[i] == "?" or pat[i] == s[j]):
            r = go(i + 1, j + 1)
        else:
            r = False
        memo[key] = r
        return r

    return go(0, 0)


def model_kind_ok(supp, e):
    k, xk, what = supp["kind"], e["kind"], e["what"]
    m = re.match(r"^(Addr|Value)(\d+)$", k)
    if m:
        if m.group(1) == "Addr":
            mm = re.match(r"^Invalid (read|write) of size (\d+)", what)
        else:
            mm = re.match(r"^Use of uninitialised value of size (\d+)", what)
            if m.group(2) == "0":
                return xk == "UninitCondition"
        return bool(mm) and mm.group(mm.lastindex) == m.group(2)
    if k in ("Cond", "Value0"):
        return xk == "UninitCondition"
    if k == "Param":
        mm = re.match(r"^Syscall param (.*) (contains|points to) ", what)
        return xk == "SyscallParam" and bool(mm) and mm.group(1) == supp["extra"]
    if k == "FishyValue":
        mm = re.match(r"^Argument '(.*)' of function (.*) has a fishy", what)
        return xk == "FishyValue" and supp["extra"] is not None and \
            (mm.group(2), mm.group(1)) == supp["extra"]
    if k == "Leak":
        return xk.startswith("Leak_") and LEAK_KIND_WORD[xk] in supp["extra"]
    return {"Jump": "InvalidJump", "User": "ClientCheck", "Overlap": "Overlap",
            "Mempool": "InvalidMemPool"}.get(k, None) == xk or \
        (k == "Free" and xk in ("InvalidFree", "MismatchedFree"))


def model_frame_eq(pf, inp, j):
    typ, pat = pf
    fr = inp["frames"][j]
    if typ == "fun":
        return string_match(pat, fr["fn"] if fr["fn"] is not None else "???")
    if typ == "obj":
        return string_match(pat, fr["obj"] if fr["obj"] is not None else "???")
    # src: the location of ips[j] (3.19 index quirk)
    ips = inp["ips"]
    if j >= len(ips):
        return None  # undefined in Valgrind (reads past the IP array)
    f, line = ips[j]["file"], ips[j]["line"]
    if f is None:
        return False
    if ":" in pat:
        fp, lp = pat.split(":", 1)
        mm = re.match(r"^\d+", lp)
        ln = int(mm.group(0)) if mm else 0
    else:
        fp, ln = pat, 0
    return string_match(fp, f) and (ln == 0 or ln == int(line))


def model_stack(frames, inp, touched=None):
    """(matches, undefined). `touched`, when a set, collects the input frame indices at
    which an obj: pattern other than `*` was compared."""
    undefined = [False]

    def go(p, i):
        if p == len(frames):
            return True
        if frames[p][0] == "dots":
            return go(p + 1, i) or (i < len(inp["frames"]) and go(p, i + 1))
        if i >= len(inp["frames"]):
            return False
        if touched is not None and frames[p][0] == "obj" and frames[p][1].strip("*"):
            touched.add(i)
        r = model_frame_eq(frames[p], inp, i)
        if r is None:
            undefined[0] = True
            return False
        return r and go(p + 1, i + 1)

    return go(0, 0), undefined[0]


def cmd_model(datadir):
    inputs = build_inputs(datadir)
    verdicts = {}
    with open(os.path.join(datadir, "verdicts.tsv")) as f:
        next(f)
        for line in f:
            r, e, v = line.rstrip("\n").split("\t")
            verdicts[(r, int(e))] = v
    agree = disagree = undef = 0
    # Verdicts in which an obj: pattern (not just `*`) is compared with a frame that the
    # text log prints with a source line, hiding its object (the XML log shows it).
    lineobj = {"pairs": 0, "suppressed": 0, "target": 0, "rules": set(), "families": {}}
    for r, body in read_cases(os.path.join(datadir, "rules.supp")):
        text = body.decode("utf-8", "surrogateescape")
        slug = case_slug(body)
        st, supp = model_load(text)
        target = int(re.search(rb"(?m)^# target: error (\d+) ", body).group(1))
        for n, inp in enumerate(inputs, 1):
            got = verdicts[(r, n)]
            touched = set()
            if st == "fatal":
                exp, und = "fatal", False
            elif st == "skip":
                exp, und = "0", False
            else:
                ok, und = (model_stack(supp["frames"], inp, touched)
                           if model_kind_ok(supp, inp["error"]) else (False, False))
                exp = "1" if ok else "0"
            printed = inp["error"]["frames"]
            if any(i < len(printed) and printed[i]["file"] is not None for i in touched):
                lineobj["pairs"] += 1
                lineobj["suppressed"] += got == "1"
                lineobj["target"] += n == target
                lineobj["rules"].add(r)
                fam = re.sub(r"\d+", "I", slug)
                lineobj["families"][fam] = lineobj["families"].get(fam, 0) + 1
            if und and exp != got:
                undef += 1
                print("undefined %s rule %s (%s) error %d: recorded %s" % (datadir, r, slug, n, got))
            elif exp == got:
                agree += 1
            else:
                disagree += 1
                print("DISAGREE %s rule %s (%s) error %d: model %s, valgrind %s" % (
                    datadir, r, slug, n, exp, got))
    print("model %s: obj: on line-info frames: %d (rule, error) verdicts (%d suppressed, %d on "
          "the rule's target error) of %d rules; by family: %s" % (
              datadir, lineobj["pairs"], lineobj["suppressed"], lineobj["target"],
              len(lineobj["rules"]), ", ".join("%s %d" % kv for kv in sorted(
                  lineobj["families"].items(), key=lambda kv: -kv[1]))))
    print("model %s: %d agree, %d disagree, %d undefined" % (datadir, agree, disagree, undef))


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[1]
    if cmd == "normalize-text":
        normalize_text(argv[2], argv[3])
    elif cmd == "normalize-xml":
        normalize_xml(argv[2], argv[3])
    elif cmd == "index":
        cmd_index(argv[2])
    elif cmd == "mutate":
        cmd_mutate(argv[2], argv[3], keep_existing="--keep-existing" in argv[4:])
    elif cmd == "split":
        cmd_split(argv[2], argv[3], new_only="--new" in argv[4:])
    elif cmd == "sample":
        cmd_sample(argv[2], argv[3], argv[4])
    elif cmd == "verdicts":
        cmd_verdicts(argv[2], argv[3], merge="--merge" in argv[4:])
    elif cmd == "inputs":
        cmd_inputs(argv[2])
    elif cmd == "model":
        cmd_model(argv[2])
    else:
        print("unknown command %r" % cmd, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

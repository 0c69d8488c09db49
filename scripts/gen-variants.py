#!/usr/bin/env python3
"""Generate the mutated suppression files in tests/data/variants/.

Each variant is a small .supp file that exercises one corner of Valgrind 3.19's
suppression loader (see docs: valgrind-semantics.md section 1). The real Valgrind's
verdict on every variant is recorded by scripts/record-valgrind-verdicts.sh into
tests/data/valgrind/variant-verdicts.tsv.

Every file starts with the header line

    # variant: <slug>; num-callers: <N>

(N is the --num-callers value to run it with). The header is a comment, so it is
line 1 of the file for Valgrind's line numbers. A second comment line
"# seed: <corpus file>:<line>" names the corpus record a variant was derived from.

Deterministic: fixed RNG seed, sorted inputs, ordered lists only. Standard library only.

Usage:
    python3 scripts/gen-variants.py              # rewrite tests/data/variants/
    python3 scripts/gen-variants.py --check      # regenerate into a temp dir, compare
    python3 scripts/gen-variants.py --outdir DIR
"""

import argparse
import filecmp
import os
import random
import re
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "data", "corpus")
OUTDIR = os.path.join(ROOT, "tests", "data", "variants")
RNG_SEED = 20220411  # Valgrind 3.19.0 release date
NC = 12  # default --num-callers

# ---------------------------------------------------------------------------
# Kind tables (Valgrind 3.19 accepts all of these except the ones marked later)
# ---------------------------------------------------------------------------
MC_KINDS_319 = (
    ["Value0", "Value1", "Value2", "Value4", "Value8", "Value16", "Value32", "Cond"]
    + ["Addr1", "Addr2", "Addr4", "Addr8", "Addr16", "Addr32"]
    + ["Jump", "Param", "User", "Free", "Overlap", "Leak", "Mempool", "CoreMem", "FishyValue"]
)
HG_KINDS_319 = ["Race", "FreeMemLock", "UnlockUnlocked", "UnlockForeign", "UnlockBogus",
                "PthAPIerror", "LockOrder", "Misc"]
DRD_KINDS = ["ConflictingAccess", "MutexErr", "CondErr", "CondDestrErr", "CondRaceErr",
             "CondWaitErr", "SemaphoreErr", "BarrierErr", "RwlockErr", "HoldtimeErr",
             "GenericErr", "InvalidThreadId", "UnimpHgClReq", "UnimpDrdClReq"]
MLK_WORDS = {"reachable", "possible", "indirect", "definite"}

LOC_RE = re.compile(r"^(fun:|obj:|src:)")


def is_loc(s):
    return s == "..." or bool(LOC_RE.match(s))


# ---------------------------------------------------------------------------
# Output collection
# ---------------------------------------------------------------------------
class Variants:
    def __init__(self):
        self.items = []  # (slug, nc, bytes)
        self.slugs = set()

    def add(self, slug, lines, nc=NC, eol="\n", final_eol=True, seed=None,
            header_eol=None):
        """lines: list of str (no line terminators). Joined with eol."""
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug), slug
        assert slug not in self.slugs, "duplicate slug " + slug
        self.slugs.add(slug)
        h_eol = eol if header_eol is None else header_eol
        head = "# variant: %s; num-callers: %d" % (slug, nc) + h_eol
        if seed is not None:
            head += "# seed: %s" % seed + eol
        body = eol.join(lines)
        if lines and final_eol:
            body += eol
        self.items.append((slug, nc, (head + body).encode("utf-8")))

    def add_raw(self, slug, body, nc=NC, header_eol="\n"):
        """body: str appended verbatim after the header line."""
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug), slug
        assert slug not in self.slugs, "duplicate slug " + slug
        self.slugs.add(slug)
        head = "# variant: %s; num-callers: %d" % (slug, nc) + header_eol
        self.items.append((slug, nc, (head + body).encode("utf-8")))


# ---------------------------------------------------------------------------
# Record helpers
# ---------------------------------------------------------------------------
IND = "   "


def rec(name="r", kind="Memcheck:Addr4", frames=None, extra=None, ind=IND,
        open_="{", close="}"):
    """Build one record as a list of lines. None drops that line."""
    if frames is None:
        frames = ["fun:leaf_read", "fun:mid_read", "fun:main"]
    out = []
    if open_ is not None:
        out.append(open_)
    if name is not None:
        out.append(ind + name)
    if kind is not None:
        out.append(ind + kind)
    if extra is not None:
        out.append(ind + extra)
    out += [ind + f for f in frames]
    if close is not None:
        out.append(close)
    return out


def join(*records, sep=True):
    """Concatenate records, with a blank line between them when sep."""
    out = []
    for i, r in enumerate(records):
        if i and sep:
            out.append("")
        out += r
    return out


# Hand-written context records (valid for their own tool under 3.19).
CTX_MC = rec("ctx-memcheck-cond", "Memcheck:Cond",
             ["fun:ctx_check", "obj:/usr/lib/libctx.so.1", "...", "fun:main"])
CTX_MC2 = rec("ctx-memcheck-leak", "Memcheck:Leak",
              ["fun:malloc", "fun:ctx_alloc", "fun:main"], extra="match-leak-kinds: definite")
CTX_HG = rec("ctx-helgrind-race", "Helgrind:Race", ["fun:ctx_worker", "fun:start_thread"])
CTX_DRD = rec("ctx-drd-conflict", "drd:ConflictingAccess", ["fun:ctx_worker", "obj:*"])


# ---------------------------------------------------------------------------
# Corpus seeds
# ---------------------------------------------------------------------------
def parse_corpus():
    """Yield (file, lineno_of_open_brace, [stripped body lines]) for simple records."""
    for fname in sorted(os.listdir(CORPUS)):
        if fname == "MANIFEST.tsv":
            continue
        data = open(os.path.join(CORPUS, fname), "rb").read()
        lines = data.split(b"\n")
        cur = None
        start = 0
        for i, raw in enumerate(lines, 1):
            s = raw.strip()
            if cur is None:
                if s == b"{":
                    cur, start = [], i
                continue
            if s == b"}":
                yield fname, start, cur
                cur = None
                continue
            cur.append(s)


def seed_record(fname, start, body):
    """Return a seed dict if the record is simple and valid under 3.19, else None."""
    if any(not l for l in body):
        return None  # blank lines inside: keep seeds simple
    try:
        body = [l.decode("ascii") for l in body]
    except UnicodeDecodeError:
        return None
    if any(len(l) > 110 or l.startswith("#") or not l.isprintable() for l in body):
        return None
    if len(body) < 3:
        return None
    name, kline, rest = body[0], body[1], body[2:]
    if name == "}" or ":" not in kline:
        return None
    tool, kind = kline.split(":", 1)
    valid = {"Memcheck": MC_KINDS_319, "Helgrind": HG_KINDS_319, "drd": DRD_KINDS}
    if tool not in valid or kind not in valid[tool] or kind in ("CoreMem", "FishyValue"):
        return None
    extra = None
    if kind == "Param":
        if is_loc(rest[0]):
            return None
        extra, rest = rest[0], rest[1:]
    elif kind == "Leak" and not is_loc(rest[0]):
        m = re.fullmatch(r"match-leak-kinds:\s*(\S+)", rest[0])
        if not m:
            return None
        words = [w for w in m.group(1).split(",") if w]
        if not words or not (set(words) <= MLK_WORDS or words in (["all"], ["none"])):
            return None
        extra, rest = rest[0], rest[1:]
    if not 2 <= len(rest) <= 10 or not all(is_loc(f) for f in rest):
        return None
    if all(f == "..." for f in rest):
        return None
    return {"file": fname, "line": start, "name": name, "tool": tool, "kind": kind,
            "extra": extra, "frames": rest}


SEED_CATEGORIES = [
    # (category, count, predicate)
    ("leak-mlk", 3, lambda s: s["kind"] == "Leak" and s["extra"] is not None),
    ("leak-old", 2, lambda s: s["kind"] == "Leak" and s["extra"] is None),
    ("param", 2, lambda s: s["kind"] == "Param"),
    ("cond", 2, lambda s: s["kind"] == "Cond"),
    ("value", 1, lambda s: s["kind"].startswith("Value")),
    ("addr", 2, lambda s: s["kind"].startswith("Addr")),
    ("free", 1, lambda s: s["kind"] == "Free"),
    ("overlap", 1, lambda s: s["kind"] == "Overlap"),
    ("helgrind", 2, lambda s: s["tool"] == "Helgrind"),
    ("drd", 2, lambda s: s["tool"] == "drd"),
    ("dots", 2, lambda s: s["tool"] == "Memcheck" and "..." in s["frames"]),
    ("obj", 2, lambda s: s["tool"] == "Memcheck" and all(f.startswith("obj:") for f in s["frames"])),
    ("src", 1, lambda s: any(f.startswith("src:") for f in s["frames"])),
]


def pick_seeds(rng):
    allrecs = []
    for fname, start, body in parse_corpus():
        s = seed_record(fname, start, body)
        if s is not None:
            allrecs.append(s)
    seeds = []
    taken = set()
    for cat, count, pred in SEED_CATEGORIES:
        cands = [s for s in allrecs if pred(s) and (s["file"], s["line"]) not in taken]
        if not cands:
            raise SystemExit("no corpus candidates for seed category " + cat)
        got = 0
        tries = 0
        while got < count and tries < 1000:
            tries += 1
            s = cands[rng.randrange(len(cands))]
            key = (s["file"], s["line"])
            if key in taken:
                continue
            # prefer seeds from different files within a category
            if any(x["file"] == s["file"] and x["cat"] == cat for x in seeds) and tries < 100:
                continue
            taken.add(key)
            got += 1
            s = dict(s)
            s["cat"] = cat
            s["id"] = "%s%d" % (cat, got)
            seeds.append(s)
    return seeds


def seed_lines(s, **kw):
    args = dict(name=s["name"], kind=s["tool"] + ":" + s["kind"], frames=list(s["frames"]),
                extra=s["extra"])
    args.update(kw)
    return rec(**args)


def seed_ref(s):
    return "%s:%d" % (s["file"], s["line"])


# ---------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------
def fam_seeds(V, seeds, rng):
    # Every seed on its own (valid baseline), and all seeds in one file.
    every = join(*[["# seed %s: %s" % (s["id"], seed_ref(s))] + seed_lines(s) for s in seeds])
    V.add("seed-all-in-one", every)
    V.add("seed-all-in-one-nc1", every, nc=1)
    V.add("seed-all-in-one-crlf", every, eol="\r\n")

    # Generic mutations applied to seeds; each seed gets a deterministic subset.
    def m_drop_open(s):
        return seed_lines(s)[1:], {}

    def m_drop_close(s):
        return seed_lines(s)[:-1], {}

    def m_drop_name(s):
        return seed_lines(s, name=None), {}

    def m_name_hash(s):
        return seed_lines(s, name="#" + s["name"]), {}

    def m_tab_indent(s):
        return ["\t{"] + ["\t\t" + l.strip() for l in seed_lines(s)[1:-1]] + ["\t}"], {}

    def m_trailing_ws(s):
        return [l + " \t " for l in seed_lines(s)], {}

    def m_crlf(s):
        return seed_lines(s), {"eol": "\r\n"}

    def m_comments(s):
        out = []
        for i, l in enumerate(seed_lines(s)):
            out += [l, ("  # comment %d" % i) if i % 2 else "# comment %d" % i]
        return out, {}

    def m_lower_tool(s):
        return seed_lines(s, kind=s["tool"].lower() + ":" + s["kind"]), {}

    def m_space_before_colon(s):
        return seed_lines(s, kind=s["tool"] + " :" + s["kind"]), {}

    def m_space_after_colon(s):
        return seed_lines(s, kind=s["tool"] + ": " + s["kind"]), {}

    def m_bad_frame(s):
        fr = list(s["frames"])
        fr[len(fr) // 2] = "foo:bar"
        return seed_lines(s, frames=fr), {}

    def m_four_dots(s):
        fr = list(s["frames"])
        fr[-1] = "...."
        return seed_lines(s, frames=fr), {}

    def m_trunc_nc1_garbage(s):
        fr = [s["frames"][0], "garbage line", "{", "x:y"]
        return seed_lines(s, frames=fr), {"nc": 1}

    def m_trunc_nc2_no_close(s):
        fr = list(s["frames"]) + ["more:junk"]
        return seed_lines(s, frames=fr, close=None), {"nc": 2}

    def m_no_final_newline(s):
        return seed_lines(s), {"final_eol": False}

    def m_close_junk(s):
        return seed_lines(s, close="} x"), {}

    def m_open_junk(s):
        return seed_lines(s, open_="{ " + s["name"]), {}

    def m_no_frames(s):
        return seed_lines(s, frames=[]), {}

    def m_fun_space(s):
        fr = [re.sub(r"^(fun|obj|src):", r"\1: ", f) for f in s["frames"]]
        return seed_lines(s, frames=fr), {}

    def m_trailing_comment(s):
        fr = [f + "  # why" if f != "..." else f for f in s["frames"]]
        return seed_lines(s, frames=fr), {}

    def m_drop_extra(s):
        return seed_lines(s, extra=None), {}

    def m_kind_unknown(s):
        return seed_lines(s, kind=s["tool"] + ":" + s["kind"] + "X"), {}

    def m_kind_lower(s):
        return seed_lines(s, kind=s["tool"] + ":" + s["kind"].lower()), {}

    def m_duplicate(s):
        return join(seed_lines(s), seed_lines(s)), {}

    def m_other_tool(s):
        other = {"Memcheck": "Helgrind", "Helgrind": "drd", "drd": "Memcheck"}[s["tool"]]
        return seed_lines(s, kind=other + ":" + s["kind"]), {}

    def m_multi_tool(s):
        return seed_lines(s, kind="Memcheck,Helgrind,drd:" + s["kind"]), {}

    def m_name_close(s):
        return seed_lines(s, name="}"), {}

    def m_kind_eof(s):
        return seed_lines(s)[:3], {}

    mutations = [
        ("drop-open", m_drop_open), ("drop-close", m_drop_close), ("drop-name", m_drop_name),
        ("name-hash", m_name_hash), ("tab-indent", m_tab_indent),
        ("trailing-ws", m_trailing_ws), ("crlf", m_crlf), ("comments", m_comments),
        ("lower-tool", m_lower_tool), ("space-before-colon", m_space_before_colon),
        ("space-after-colon", m_space_after_colon), ("bad-frame", m_bad_frame),
        ("four-dots", m_four_dots), ("nc1-garbage", m_trunc_nc1_garbage),
        ("nc2-no-close", m_trunc_nc2_no_close), ("no-final-eol", m_no_final_newline),
        ("close-junk", m_close_junk), ("open-junk", m_open_junk), ("no-frames", m_no_frames),
        ("fun-space", m_fun_space), ("trailing-comment", m_trailing_comment),
        ("drop-extra", m_drop_extra), ("kind-unknown", m_kind_unknown),
        ("kind-lower", m_kind_lower), ("duplicate", m_duplicate),
        ("other-tool", m_other_tool), ("multi-tool", m_multi_tool),
        ("name-close", m_name_close), ("kind-eof", m_kind_eof),
    ]
    n = len(seeds)
    per_seed = 2
    for i, s in enumerate(seeds):
        chosen = []
        # mutations that only make sense with an extra line
        pool = [m for m in mutations if m[0] != "drop-extra" or s["extra"] is not None]
        if s["extra"] is not None:
            chosen.append(("drop-extra", m_drop_extra))
        while len(chosen) < per_seed:
            m = pool[rng.randrange(len(pool))]
            if m not in chosen:
                chosen.append(m)
        chosen.sort(key=lambda m: [x[0] for x in mutations].index(m[0]))
        for j, (mname, mfun) in enumerate(chosen):
            body, opts = mfun(s)
            pos = (i + j) % 3 + 1
            a, b = seeds[(i + 1 + j) % n], seeds[(i + 2 + j) % n]
            if pos == 1:
                lines = body
            elif pos == 2:
                lines = join(seed_lines(a), body, seed_lines(b))
            else:
                lines = join(seed_lines(a), seed_lines(b), body)
            if mname == "crlf" or mname == "no-final-eol" or mname == "kind-eof":
                # keep the mutated record last so EOF-related behaviour is exercised
                lines = join(seed_lines(a), body) if pos != 1 else body
                pos = 2 if pos != 1 else 1
            V.add("seed-%s-%s-r%d" % (s["id"], mname, pos), lines, seed=seed_ref(s), **opts)


def fam_braces(V, seeds):
    A = rec("first", "Memcheck:Addr4", ["fun:leaf_read", "fun:main"])
    B = rec("second", "Memcheck:Cond", ["fun:check", "obj:/usr/lib/libx.so"])
    C = rec("third", "Memcheck:Free", ["fun:free", "fun:release"])
    # missing {
    V.add("brace-missing-open-r1", rec(open_=None))
    V.add("brace-missing-open-r2", join(A, rec(open_=None), C))
    V.add("brace-missing-open-r3", join(A, B, rec(open_=None)))
    V.add("brace-missing-open-helgrind-r2", join(A, rec("h", "Helgrind:Race", open_=None)))
    # missing } at EOF
    V.add("brace-missing-close-eof-r1", rec(close=None))
    V.add("brace-missing-close-eof-r3", join(A, B, rec(close=None)))
    V.add("brace-missing-close-eof-blank-lines", join(A, rec(close=None)) + ["", "", "  ", ""])
    V.add("brace-missing-close-eof-no-eol", join(A, rec(close=None)), final_eol=False)
    V.add("brace-missing-close-eof-helgrind", join(A, rec("h", "Helgrind:Race", close=None)))
    # missing } before the next {
    V.add("brace-missing-close-before-next-r1", join(rec(close=None), A))
    V.add("brace-missing-close-before-next-r2", join(A, rec(close=None), C))
    V.add("brace-missing-close-before-next-nosep", join(A, rec(close=None), C, sep=False))
    V.add("brace-missing-close-before-next-helgrind",
          join(A, rec("h", "Helgrind:Race", close=None), C))
    # junk on brace lines
    V.add("brace-open-junk-x", rec(open_="{ x"))
    V.add("brace-open-junk-comment", rec(open_="{ # comment"))
    V.add("brace-open-junk-glued", rec(open_="{x"))
    V.add("brace-open-name-same-line", rec(open_="{ name }", name=None))
    V.add("brace-open-junk-r2", join(A, rec(open_="{ x")))
    V.add("brace-close-junk-x", rec(close="} x"))
    V.add("brace-close-junk-comment", rec(close="} # end"))
    V.add("brace-close-double", rec(close="}}"))
    V.add("brace-close-junk-r3", join(A, B, rec(close="} x")))
    V.add("brace-close-junk-helgrind", join(A, rec("h", "Helgrind:Race", close="} x"), C))
    # indentation
    V.add("brace-indent-spaces", rec(open_="    {", close="  }"))
    V.add("brace-indent-tabs", rec(open_="\t{", close="\t\t}"))
    V.add("brace-trailing-ws", rec(open_="{  \t", close="}\t  "))
    V.add("brace-indent-all-r2", join(A, rec(open_="\t{", close="\t}", ind="\t\t"), C))
    # extra }
    V.add("brace-extra-close-after", rec() + ["}"])
    V.add("brace-extra-close-between", join(A, ["}"], B))
    V.add("brace-extra-close-start", ["}"] + A)
    V.add("brace-extra-open-between", join(A, ["{"], B))
    # junk between records
    V.add("brace-junk-between-word", join(A, ["junk"], B))
    V.add("brace-junk-between-frame", join(A, ["   fun:stray"], B))
    V.add("brace-junk-before-first", ["junk"] + A)
    V.add("brace-junk-after-last", join(A, B) + ["junk"])
    V.add("brace-junk-after-last-no-eol", join(A, B) + ["junk"], final_eol=False)
    # name {
    V.add("brace-name-open", rec(name="{"))
    V.add("brace-name-open-r2", join(A, rec(name="{"), C))
    V.add("brace-empty-record", ["{", "}"])
    V.add("brace-only-open-eol", ["{"])
    V.add("brace-only-open-no-eol", ["{"], final_eol=False)
    V.add("brace-open-then-blank-eof", ["{", "", ""])
    V.add("brace-open-name-eof-r2", join(A, ["{", "   name"]))
    V.add("brace-nested", ["{"] + rec(name="inner") + ["}"])


def fam_names(V):
    A = rec("first", "Memcheck:Addr4", ["fun:leaf_read", "fun:main"])
    V.add("name-missing-r1", rec(name=None))
    V.add("name-missing-r2", join(A, rec(name=None)))
    V.add("name-missing-r3-then-valid", join(A, rec(name=None), CTX_MC))
    V.add("name-missing-obj-frame", rec(name=None, frames=["obj:/usr/lib/libz.so", "fun:main"]))
    V.add("name-missing-src-frame", rec(name=None, frames=["src:x.c:3", "fun:main"]))
    V.add("name-missing-dots-frame", rec(name=None, frames=["...", "fun:main"]))
    V.add("name-missing-one-frame", rec(name=None, frames=["fun:only"]))
    V.add("name-missing-leak-mlk", rec(name=None, kind="Memcheck:Leak",
                                       extra="match-leak-kinds: definite"))
    V.add("name-missing-param", rec(name=None, kind="Memcheck:Param", extra="write(buf)"))
    V.add("name-missing-helgrind", rec(name=None, kind="Helgrind:Race"))
    V.add("name-close", rec(name="}"))
    V.add("name-close-r2", join(A, rec(name="}")))
    V.add("name-close-indented", rec(name="}\t"))
    V.add("name-hash", rec(name="#1"))
    V.add("name-hash-r2", join(A, rec(name="# name")))
    V.add("name-hash-then-valid", join(rec(name="#1"), A))
    V.add("name-spaces", rec(name="a name with   spaces"))
    V.add("name-colons", rec(name="a:b:c::d"))
    V.add("name-fun-x", rec(name="fun:x"))
    V.add("name-tool-like", rec(name="Memcheck:Addr8"))
    V.add("name-open-brace-inside", rec(name="name{with}braces"))
    V.add("name-unicode", rec(name="n\u00e4me-\u2603"))
    V.add("name-long-300", rec(name="n" * 300))
    V.add("name-duplicate", join(rec(name="same"), rec(name="same", kind="Memcheck:Cond")))
    V.add("name-eof", ["{", "   lonely"])
    V.add("name-eof-after-comment", ["{", "   lonely", "# comment"])


TOOL_LINES = [
    ("no-colon", "Memcheck"),
    ("no-colon-kind", "MemcheckAddr4"),
    ("no-colon-space", "Memcheck Addr4"),
    ("lowercase", "memcheck:Addr4"),
    ("camelcase", "MemCheck:Addr4"),
    ("space-before-colon", "Memcheck :Addr4"),
    ("space-after-colon", "Memcheck: Addr4"),
    ("tab-after-colon", "Memcheck:\tAddr4"),
    ("kind-extra-colon", "Memcheck:Addr4:x"),
    ("kind-trailing-colon", "Memcheck:Addr4:"),
    ("double-colon", "Memcheck::Addr4"),
    ("empty-kind", "Memcheck:"),
    ("empty-tools", ":Addr4"),
    ("only-colon", ":"),
    ("trailing-spaces", "Memcheck:Addr4   "),
    ("helgrind-space-memcheck", "Helgrind, Memcheck:Addr4"),
    ("memcheck-space-helgrind", "Memcheck, Helgrind:Addr4"),
    ("memcheckx-memcheck", "MemcheckX,Memcheck:Addr4"),
    ("xmemcheck-memcheck", "XMemcheck,Memcheck:Addr4"),
    ("memcheck-memcheckx", "Memcheck,MemcheckX:Addr4"),
    ("leading-comma", ",Memcheck:Addr4"),
    ("trailing-comma", "Memcheck,:Addr4"),
    ("double-comma", "Helgrind,,Memcheck:Addr4"),
    ("memcheck-helgrind-addr4", "Memcheck,Helgrind:Addr4"),
    ("helgrind-memcheck-race", "Helgrind,Memcheck:Race"),
    ("memcheck-helgrind-race", "Memcheck,Helgrind:Race"),
    ("three-tools-race", "Memcheck,Helgrind,drd:Race"),
    ("helgrind-drd-race", "Helgrind,drd:Race"),
    ("drd-helgrind-conflicting", "drd,Helgrind:ConflictingAccess"),
    ("drd-upper", "DRD:ConflictingAccess"),
    ("drd-lower", "drd:ConflictingAccess"),
    ("helgrind-addr4", "Helgrind:Addr4"),
    ("drd-race", "drd:Race"),
    ("memcheck-race", "Memcheck:Race"),
    ("core-foo", "core:Foo"),
    ("core-pthread", "core:PThread"),
    ("core-empty-kind", "core:"),
    ("core-memcheck", "core,Memcheck:Addr4"),
    ("memcheck-core", "Memcheck,core:Addr4"),
    ("core-drd", "core,drd:ConflictingAccess"),
    ("coreerror-fdnotclosed", "CoreError:FdNotClosed"),
    ("coreerror-fdbadclose", "CoreError:FdBadClose"),
    ("coreerror-fdbaduse", "CoreError:FdBadUse"),
    ("memcheck-coreerror", "Memcheck,CoreError:Addr4"),
    ("massif", "Massif:Foo"),
    ("exp-bbv", "exp-bbv:Foo"),
    ("exp-sgcheck", "exp-sgcheck:SorG"),
    ("addrcheck-memcheck", "Addrcheck,Memcheck:Addr4"),
    ("thrcheck", "Thrcheck:Race"),
]


def fam_tools(V):
    for slug, line in TOOL_LINES:
        V.add("tool-" + slug, rec("t", line, ["fun:leaf_read", "fun:main"]))
    A = rec("first", "Memcheck:Addr4", ["fun:leaf_read", "fun:main"])
    for slug, line in [("space-after-colon", "Memcheck: Addr4"), ("core-foo", "core:Foo"),
                       ("memcheck-helgrind-addr4", "Memcheck,Helgrind:Addr4")]:
        V.add("tool-%s-r2" % slug, join(A, rec("t", line, ["fun:x", "fun:main"]), CTX_HG))
    # skipped record whose body is garbage (never validated)
    V.add("tool-skipped-garbage-body",
          rec("t", "Memcheck :Addr4", ["garbage", "{", "more garbage", "Memcheck:Nope"]))
    V.add("tool-skipped-no-frames", rec("t", "memcheck:Addr4", []))
    V.add("tool-skipped-eof", join(A, rec("t", "memcheck:Addr4", close=None)))
    V.add("tool-skipped-eof-comment", join(A, rec("t", "memcheck:Addr4", close=None)) + ["# c"])
    V.add("tool-skipped-close-junk", rec("t", "memcheck:Addr4", close="} x"))


def case_suffix(k):
    """Distinguish 'cond'/'COND' from 'Cond' in slugs."""
    return "-lc" if k.islower() else "-uc" if k.isupper() else ""


def fam_kinds(V):
    mc_extra = {"Param": "write(buf)", "FishyValue": "malloc(size)"}
    mc = (MC_KINDS_319
          + ["ReallocZero", "BadAlign", "BadSize", "UnsafeZeroSize", "SizeMismatch",
             "AlignMismatch"]
          + ["Value3", "Value64", "Addr64", "cond", "COND", "addr4", "leak",
             "Uninitialized", "Race", "Foo"])
    for k in mc:
        extra = mc_extra.get(k)
        V.add("kind-mc-" + k.lower() + case_suffix(k),
              rec("k", "Memcheck:" + k, ["fun:leaf_read", "fun:main"], extra=extra))
    V.add("kind-mc-leak-mlk", rec("k", "Memcheck:Leak", ["fun:malloc", "fun:main"],
                                  extra="match-leak-kinds: definite"))
    hg = HG_KINDS_319 + ["Dubious", "race", "lockorder", "Cond", "Foo"]
    for k in hg:
        V.add("kind-hg-" + k.lower() + case_suffix(k),
              rec("k", "Helgrind:" + k, ["fun:worker", "fun:start_thread"]))
    drd = DRD_KINDS + ["conflictingaccess", "Race", "Foo"]
    for k in drd:
        V.add("kind-drd-" + k.lower() + case_suffix(k),
              rec("k", "drd:" + k, ["fun:worker", "obj:*"]))
    # a version-dependent kind in the middle of an otherwise valid file
    V.add("kind-mc-realloczero-r2", join(CTX_MC, rec("k", "Memcheck:ReallocZero"), CTX_MC2))
    V.add("kind-hg-dubious-r3", join(CTX_HG, CTX_MC, rec("k", "Helgrind:Dubious")))
    V.add("kind-mc-badalign-r2-helgrind-first", join(CTX_HG, rec("k", "Memcheck:BadAlign")))


def fam_spaces(V):
    fr = ["fun:leaf_read", "obj:/lib/libc.so.6", "src:errs.c:11", "...", "fun:main"]
    V.add("ws-every-line-leading-spaces",
          ["  {", "     name", "  Memcheck:Addr4"] + ["    " + f for f in fr] + ["  }"])
    V.add("ws-every-line-leading-tabs",
          ["\t{", "\tname", "\tMemcheck:Addr4"] + ["\t\t" + f for f in fr] + ["\t}"])
    V.add("ws-every-line-trailing-spaces",
          ["{  ", "name  ", "Memcheck:Addr4  "] + [f + "   " for f in fr] + ["}  "])
    V.add("ws-every-line-both", [" \t{ \t", " \tname\t ", "\t Memcheck:Addr4 \t"]
          + ["\t " + f + " \t" for f in fr] + [" \t} \t"])
    V.add("ws-vt-ff", ["\v{\f", "\fname\v", "Memcheck:Addr4\f", "\vfun:x\f", "\f}\v"])
    V.add("ws-nbsp-brace", ["\u00a0{"] + rec()[1:])
    V.add("ws-param-extra-trailing", rec(kind="Memcheck:Param", extra="write(buf) \t "))
    V.add("ws-param-extra-leading", rec(kind="Memcheck:Param", extra="\t write(buf)"))
    V.add("ws-mlk-trailing", rec(kind="Memcheck:Leak", extra="match-leak-kinds: definite \t"))
    V.add("ws-mlk-leading", rec(kind="Memcheck:Leak", extra="\t  match-leak-kinds: definite"))
    V.add("ws-fishy-trailing", rec(kind="Memcheck:FishyValue", extra="malloc(size)  "))
    V.add("ws-fun-space-after-colon", rec(frames=["fun: leaf_read", "fun:main"]))
    V.add("ws-src-space-before-lineno", rec(frames=["src:errs.c: 11"]))
    V.add("ws-fun-space-before-colon", rec(frames=["fun :leaf_read"]))
    V.add("ws-dots-spaced", rec(frames=[" ... ", "fun:main"]))
    V.add("ws-dots-inner-space", rec(frames=[". ..", "fun:main"]))
    V.add("ws-fun-inner-space", rec(frames=["fun:operator new(unsigned long)", "fun:main"]))
    V.add("ws-trailing-comment-frame", rec(frames=["fun:leaf_read # c", "fun:main"]))
    V.add("ws-trailing-comment-kind", rec(kind="Memcheck:Addr4 # c"))
    V.add("ws-trailing-comment-name", rec(name="name # c"))
    V.add("ws-trailing-comment-open", rec(open_="{ # c"))
    V.add("ws-trailing-comment-close", rec(close="} # c"))
    V.add("ws-trailing-comment-mlk", rec(kind="Memcheck:Leak", extra="match-leak-kinds: definite # c"))
    V.add("ws-trailing-comment-param", rec(kind="Memcheck:Param", extra="write(buf) # c"))
    V.add("ws-blank-lines-inside-record", ["{", "", "   name", "  ", "\t", "   Memcheck:Addr4",
                                            "", "   fun:x", "", "}"])


def fam_extra(V):
    P = "Memcheck:Param"
    L = "Memcheck:Leak"
    F = "Memcheck:FishyValue"
    A = rec("first", "Memcheck:Addr4", ["fun:leaf_read", "fun:main"])
    # Param
    V.add("param-ok", rec(kind=P, extra="write(buf)"))
    V.add("param-sendmsg", rec(kind=P, extra="sendmsg(msg.msg_iov[0])"))
    V.add("param-preadv-obsolete", rec(kind=P, extra="preadv(vector[...])"))
    V.add("param-wildcard", rec(kind=P, extra="write(*)"))
    V.add("param-missing-fun", rec(kind=P))
    V.add("param-missing-obj", rec(kind=P, frames=["obj:/lib/libc.so.6", "fun:main"]))
    V.add("param-missing-dots", rec(kind=P, frames=["...", "fun:main"]))
    V.add("param-missing-r2", join(A, rec(kind=P), CTX_HG))
    V.add("param-then-src", rec(kind=P, frames=["src:x.c:1", "fun:main"]))
    V.add("param-then-src-only", rec(kind=P, frames=["src:x.c:1"]))
    V.add("param-then-close-eof", rec(kind=P, frames=["}"], close=None))
    V.add("param-then-close-next-record", join(rec(kind=P, frames=[], close=None) + ["}"], A))
    V.add("param-then-close-then-close", rec(kind=P, frames=["}"]))
    V.add("param-eof", ["{", "   p", "   " + P])
    V.add("param-eof-no-eol", ["{", "   p", "   " + P], final_eol=False)
    V.add("param-comment-between", rec(kind=P, extra="# c\n   write(buf)"))
    V.add("param-open-brace-as-string", rec(kind=P, extra="{"))
    V.add("param-mlk-as-string", rec(kind=P, extra="match-leak-kinds: definite"))
    V.add("param-no-frames", rec(kind=P, extra="write(buf)", frames=[]))
    V.add("param-helgrind-r2", join(CTX_HG, rec(kind="Memcheck,Helgrind:Param", extra="write(buf)")))
    # Leak: valid match-leak-kinds
    for slug, mlk in [("definite", "definite"), ("possible", "possible"),
                      ("reachable", "reachable"), ("all", "all"),
                      ("none", "none"), ("two", "definite,possible"),
                      ("four", "definite,indirect,possible,reachable"),
                      ("empty-items", ",,definite,"), ("duplicate-word", "definite,definite")]:
        V.add("mlk-" + slug, rec(kind=L, extra="match-leak-kinds: " + mlk,
                                 frames=["fun:malloc", "fun:main"]))
    V.add("mlk-tab-after-colon", rec(kind=L, extra="match-leak-kinds:\tdefinite"))
    V.add("mlk-no-space", rec(kind=L, extra="match-leak-kinds:definite"))
    V.add("mlk-none-absent", rec(kind=L, frames=["fun:malloc", "fun:main"]))
    # Leak: invalid match-leak-kinds
    for slug, line in [("space-in-list", "match-leak-kinds: definite, possible"),
                       ("space-separated", "match-leak-kinds: definite possible"),
                       ("capitalised", "match-leak-kinds: Definite"),
                       ("all-and-definite", "match-leak-kinds: all,definite"),
                       ("none-and-definite", "match-leak-kinds: none,definite"),
                       ("definite-and-none", "match-leak-kinds: definite,none"),
                       ("empty", "match-leak-kinds:"),
                       ("empty-trailing-space", "match-leak-kinds:   "),
                       ("only-commas", "match-leak-kinds: ,,"),
                       ("unknown-word", "match-leak-kinds: lost"),
                       ("space-before-colon", "match-leak-kinds : definite"),
                       ("capital-key", "Match-leak-kinds: definite"),
                       ("junk-line", "leak of 16 bytes")]:
        V.add("mlk-bad-" + slug, rec(kind=L, extra=line, frames=["fun:malloc", "fun:main"]))
    V.add("mlk-bad-space-in-list-r3", join(A, CTX_MC2, rec(kind=L, extra="match-leak-kinds: definite, possible")))
    V.add("mlk-bad-empty-r2", join(A, rec(kind=L, extra="match-leak-kinds:"), CTX_MC))
    V.add("leak-src-first-frame", rec(kind=L, frames=["src:x.c:3", "fun:main"]))
    V.add("leak-close-after-kind", rec(kind=L, frames=[]))
    V.add("leak-close-after-kind-r2", join(A, rec(kind=L, frames=[]), CTX_MC))
    V.add("leak-eof-after-kind", ["{", "   l", "   " + L])
    V.add("leak-eof-after-mlk", ["{", "   l", "   " + L, "   match-leak-kinds: all"])
    V.add("leak-dots-first", rec(kind=L, frames=["...", "fun:main"]))
    V.add("leak-obj-first", rec(kind=L, frames=["obj:/lib/libc.so.6", "fun:main"]))
    V.add("leak-mlk-twice", rec(kind=L, extra="match-leak-kinds: definite",
                                frames=["match-leak-kinds: possible", "fun:main"]))
    V.add("leak-mlk-then-close", rec(kind=L, extra="match-leak-kinds: definite", frames=[]))
    V.add("leak-comment-before-mlk", rec(kind=L, extra="# c\n   match-leak-kinds: definite"))
    V.add("leak-mlk-helgrind-tool", rec(kind="Helgrind:Leak", extra="match-leak-kinds: definite"))
    V.add("mlk-on-addr4", rec(kind="Memcheck:Addr4", extra="match-leak-kinds: definite"))
    V.add("mlk-on-race", rec(kind="Helgrind:Race", extra="match-leak-kinds: definite"))
    V.add("mlk-on-drd", rec(kind="drd:ConflictingAccess", extra="match-leak-kinds: definite"))
    # FishyValue
    for slug, line in [("ok", "malloc(size)"), ("junk-after", "malloc(size)junk"),
                       ("missing-close-paren", "malloc(size"),
                       ("missing-open-paren", "mallocsize)"),
                       ("empty-arg", "malloc()"), ("only-parens", "()"),
                       ("reversed-parens", ")malloc("), ("no-parens", "malloc")]:
        V.add("fishy-" + slug, rec(kind=F, extra=line))
    V.add("fishy-missing-extra", rec(kind=F))
    V.add("fishy-missing-extra-dots", rec(kind=F, frames=["...", "fun:main"]))
    V.add("fishy-src-first", rec(kind=F, frames=["src:x.c:1", "fun:main"]))
    V.add("fishy-close-after-kind", rec(kind=F, frames=[]))
    V.add("fishy-eof-after-kind", ["{", "   f", "   " + F])
    V.add("fishy-missing-extra-r2", join(A, rec(kind=F), CTX_MC))
    # extra-looking lines for kinds without an extra line
    V.add("extra-on-addr4", rec(kind="Memcheck:Addr4", extra="write(buf)"))
    V.add("extra-on-cond-src-first", rec(kind="Memcheck:Cond", frames=["src:x.c:3", "fun:main"]))
    V.add("extra-on-race-src-first", rec(kind="Helgrind:Race", frames=["src:x.c:3", "fun:main"]))
    V.add("extra-on-coremem", rec(kind="Memcheck:CoreMem", extra="write(buf)"))


def fam_frames(V):
    A = rec("first", "Memcheck:Addr4", ["fun:leaf_read", "fun:main"])
    V.add("frames-zero", rec(frames=[]))
    V.add("frames-zero-r2", join(A, rec(frames=[]), CTX_MC))
    V.add("frames-zero-leak", rec(kind="Memcheck:Leak", frames=[]))
    V.add("frames-zero-leak-mlk", rec(kind="Memcheck:Leak", extra="match-leak-kinds: all", frames=[]))
    V.add("frames-zero-helgrind", rec(kind="Helgrind:Race", frames=[]))
    V.add("frames-only-dots", rec(frames=["..."]))
    V.add("frames-only-dots-r3", join(A, CTX_MC, rec(frames=["...", "..."])))
    f3 = ["...", "...", "fun:x"]
    V.add("frames-dots-dots-fun-nc2", rec(frames=f3), nc=2)
    V.add("frames-dots-dots-fun-nc3", rec(frames=f3), nc=3)
    V.add("frames-dots-dots-fun-nc12", rec(frames=f3), nc=12)
    V.add("frames-dots-fun-nc1", rec(frames=["...", "fun:x"]), nc=1)
    V.add("frames-fun-dots-nc1", rec(frames=["fun:x", "..."]), nc=1)
    V.add("frames-12-dots-then-fun-nc12", rec(frames=["..."] * 12 + ["fun:x"]))
    for nc in (1, 2, 3, 12):
        fr = ["fun:f%d" % i for i in range(nc)]
        V.add("frames-exactly-nc%d" % nc, rec(frames=fr), nc=nc)
        V.add("frames-nc%d-plus-garbage" % nc,
              rec(frames=fr + ["garbage", "{", "foo:bar", "...."]), nc=nc)
        if nc in (2, 12):
            V.add("frames-exactly-nc%d-no-close-eof" % nc, rec(frames=fr, close=None), nc=nc)
    V.add("frames-11-no-close-eof-nc12", rec(frames=["fun:f%d" % i for i in range(11)], close=None))
    V.add("frames-garbage-at-nc2", rec(frames=["fun:a", "garbage"]), nc=2)
    V.add("frames-garbage-at-nc3-r2", join(A, rec(frames=["fun:a", "fun:b", "garbage"])), nc=3)
    V.add("frames-nc1-comment-tail", rec(frames=["fun:a", "# c", "fun:b", "# }", "x"]), nc=1)
    many = lambda n: ["fun:f%d" % i for i in range(n)]
    V.add("frames-500-nc500", rec(frames=many(500)), nc=500)
    V.add("frames-501-nc500", rec(frames=many(501)), nc=500)
    V.add("frames-600-nc500", rec(frames=many(600)), nc=500)
    V.add("frames-500-nc12", rec(frames=many(500)), nc=12)
    V.add("frames-501-nc12", rec(frames=many(501)), nc=12)
    V.add("frames-600-nc12", rec(frames=many(600)), nc=12)
    V.add("frames-499-plus-dots-nc500", rec(frames=many(499) + ["..."]), nc=500)
    V.add("frames-501-nc500-r2", join(A, rec(frames=many(501))), nc=500)
    V.add("frames-501-leak-mlk-nc500",
          rec(kind="Memcheck:Leak", extra="match-leak-kinds: all", frames=many(501)), nc=500)
    V.add("frames-500-param-nc500",
          rec(kind="Memcheck:Param", extra="write(buf)", frames=many(500)), nc=500)
    # truncation and a missing }
    t3 = ["fun:a", "fun:b", "fun:c"]
    V.add("frames-trunc-no-close-eof-nc2", rec(frames=t3, close=None), nc=2)
    V.add("frames-trunc-no-close-before-next-nc2", join(rec(frames=t3, close=None), A), nc=2)
    V.add("frames-trunc-no-close-swallows-bad-nc2",
          join(rec(frames=t3, close=None), rec("bad", "Memcheck:Nope", ["foo:bar"])), nc=2)
    V.add("frames-trunc-no-close-then-error-r3-nc2",
          join(rec(frames=t3, close=None), A, rec("bad", "Memcheck:Addr4", ["foo:bar"])), nc=2)
    V.add("frames-trunc-no-close-swallow-leaves-junk-nc2",
          join(rec(frames=t3, close=None), A + ["}"]), nc=2)
    V.add("frames-notrunc-no-close-before-next-nc12", join(rec(frames=t3, close=None), A))
    V.add("frames-trunc-leak-mlk-nc1",
          rec(kind="Memcheck:Leak", extra="match-leak-kinds: definite", frames=t3), nc=1)
    V.add("frames-trunc-param-nc1", rec(kind="Memcheck:Param", extra="write(buf)", frames=t3), nc=1)
    V.add("frames-trunc-helgrind-no-close-nc1", rec(kind="Helgrind:Race", frames=t3, close=None), nc=1)


def fam_locations(V):
    A = rec("first", "Memcheck:Addr4", ["fun:leaf_read", "fun:main"])
    bad = [("foo-bar", "foo:bar"), ("four-dots", "...."), ("dots-suffix", "...x"), ("ellipsis-char", "\u2026"), ("fun-no-colon", "fun"),
           ("fun-upper", "FUN:x"), ("src-no-colon", "src"), ("star", "*"),
           ("open-brace", "{"), ("fun-space-colon", "fun :x"), ("kind-line", "Memcheck:Addr4")]
    for slug, line in bad:
        V.add("loc-bad-" + slug, rec(frames=["fun:leaf_read", line, "fun:main"]))
    V.add("loc-bad-foo-bar-first", rec(frames=["foo:bar"]))
    V.add("loc-bad-foo-bar-r2", join(A, rec(frames=["fun:x", "foo:bar"]), CTX_MC))
    V.add("loc-bad-foo-bar-r3", join(A, CTX_MC, rec(frames=["fun:x", "fun:y", "fun:z", "foo:bar"])))
    V.add("loc-bad-first-frame-leak", rec(kind="Memcheck:Leak", frames=["foo:bar"]))
    V.add("loc-bad-helgrind", rec(kind="Helgrind:Race", frames=["fun:x", "foo:bar"]))
    V.add("loc-bad-drd", rec(kind="drd:ConflictingAccess", frames=["fun:x", "foo:bar"]))
    ok = [("src-11x", "src:f.c:11x"), ("src-abc", "src:f.c:abc"), ("src-empty-lineno", "src:f.c:"),
          ("src-empty", "src:"), ("fun-empty", "fun:"), ("obj-empty", "obj:"),
          ("src-multi-colon", "src:a:b:c"), ("src-negative", "src:f.c:-3"),
          ("src-huge-lineno", "src:f.c:99999999999999999999")]
    for slug, line in ok:
        V.add("loc-" + slug, rec(frames=[line, "fun:main"]))


def fam_eol(V):
    A = rec("first", "Memcheck:Addr4", ["fun:leaf_read", "fun:main"])
    B = rec("second", "Memcheck:Cond", ["fun:check", "obj:/usr/lib/libx.so"])
    V.add("eol-crlf-valid", join(A, B, CTX_HG, CTX_DRD), eol="\r\n")
    V.add("eol-crlf-bad-frame-r2", join(A, rec(frames=["fun:x", "foo:bar"]), B), eol="\r\n")
    V.add("eol-crlf-missing-close-eof", join(A, rec(close=None)), eol="\r\n")
    V.add("eol-crlf-no-final", join(A, B), eol="\r\n", final_eol=False)
    V.add("eol-crlf-mlk", rec(kind="Memcheck:Leak", extra="match-leak-kinds: definite,possible"),
          eol="\r\n")
    V.add("eol-cr-only-body", join(A, B), eol="\r", header_eol="\n")
    V.add("eol-cr-only-body-no-final", join(A, B), eol="\r", header_eol="\n", final_eol=False)
    V.add("eol-cr-only-whole-file", join(A, B), eol="\r")
    V.add("eol-cr-cr-lf", join(A, B), eol="\r\r\n")
    V.add("eol-mixed-lf-crlf", ["{\r", "   m\r", "   Memcheck:Addr4", "   fun:x\r", "}"] + B)
    V.add("eol-mixed-cr-inside-line", ["{", "   m", "   Memcheck:Addr4\r   fun:x", "   fun:y", "}"])
    V.add("eol-mixed-cr-between-records", ["{", "   m", "   Memcheck:Addr4", "   fun:x", "}\r{",
                                            "   n", "   Memcheck:Addr4", "   fun:y", "}"])
    V.add("eol-no-final-newline-valid", join(A, B), final_eol=False)
    V.add("eol-no-final-newline-bad-close", join(A, rec(close="} x")), final_eol=False)
    V.add("eol-no-final-newline-bad-frame-last", join(A, rec(close=None)[:-1] + ["   foo:bar"]),
          final_eol=False)
    V.add("eol-no-final-newline-eof-in-frames", join(A, rec(close=None)), final_eol=False)
    V.add("eol-no-final-newline-junk-after", join(A, ["junk"]), final_eol=False)
    V.add("eol-no-final-newline-name-close", join(A, ["{", "}"]), final_eol=False)
    V.add("eol-no-final-newline-only-brace", join(A, ["{"]), final_eol=False)
    V.add("eol-no-final-newline-param-missing",
          join(A, ["{", "   p", "   Memcheck:Param"]), final_eol=False)
    # The final line without \n is returned as read: not trimmed, not checked for '#'.
    V.add("eol-no-final-newline-close-trailing-space", join(A, rec(close="}  ")), final_eol=False)
    V.add("eol-no-final-newline-close-trailing-tab", join(A, rec(close="}\t")), final_eol=False)
    V.add("eol-no-final-newline-close-cr", join(A, rec(close="}\r")), final_eol=False)
    V.add("eol-no-final-newline-ws-only-last-line", join(A, B) + ["  \t"], final_eol=False)
    V.add("eol-no-final-newline-comment-indented", join(A, B) + ["  # c"], final_eol=False)
    V.add("eol-no-final-newline-frame-trailing-space",
          join(A, rec(close=None)[:-1] + ["   fun:main   "]), final_eol=False)
    V.add("eol-no-final-newline-comment-in-frames", join(A, rec(close=None)) + ["# }"],
          final_eol=False)
    V.add("eol-no-final-newline-comment-after-trunc-nc1", rec(close=None) + ["# }"], nc=1,
          final_eol=False)
    V.add("eol-no-final-newline-skipped-close-trailing-space",
          join(A, rec(kind="Helgrind:Race", close="} ")), final_eol=False)
    V.add("eol-trailing-blank-lines-valid", join(A, B) + ["", "", "", ""])
    V.add("eol-trailing-blank-lines-missing-close", join(A, rec(close=None)) + ["", "", ""])
    V.add("eol-trailing-blank-lines-skipped-missing-close",
          join(A, rec(kind="Helgrind:Race", close=None)) + ["", ""])
    V.add("eol-ends-after-kind", join(A, ["{", "   name", "   Memcheck:Addr4"]))
    V.add("eol-ends-after-kind-leak", ["{", "   name", "   Memcheck:Leak"])
    V.add("eol-header-only", [])
    V.add_raw("eol-header-only-no-eol", "", header_eol="")
    V.add("eol-comments-only", ["# one", "  # two", "\t#three", "#"])
    V.add("eol-leading-blank-lines", ["", "", "", ""] + A)
    V.add("eol-leading-blank-lines-error", ["", "", "", ""] + rec(frames=["foo:bar"]))
    V.add("eol-many-blank-lines-between", A + [""] * 40 + rec(frames=["foo:bar"]))


def fam_comments(V):
    A = rec("first", "Memcheck:Addr4", ["fun:leaf_read", "fun:main"])
    base = ["{", "   name", "   Memcheck:Addr4", "   fun:a", "   fun:b", "}"]
    pos_names = ["before-open", "after-open", "after-name", "after-kind", "between-frames",
                 "before-close", "after-close"]
    for i, pname in enumerate(pos_names):
        lines = list(base)
        lines.insert(i, "# comment " + pname)
        V.add("comment-" + pname, lines)
    V.add("comment-every-line-r2", join(A, [x for l in base for x in (l, "  # c")]))
    V.add("comment-param-between-kind-extra",
          ["{", "   p", "   Memcheck:Param", "# c", "   write(buf)", "   fun:a", "}"])
    V.add("comment-leak-between-kind-mlk",
          ["{", "   l", "   Memcheck:Leak", "\t# c", "   match-leak-kinds: all", "   fun:a", "}"])
    V.add("comment-fishy-between-kind-extra",
          ["{", "   f", "   Memcheck:FishyValue", "# c", "   malloc(size)", "   fun:a", "}"])
    V.add("comment-indented-spaces", ["    # c"] + A)
    V.add("comment-indented-tab", ["\t# c"] + A + ["\t\t# d"])
    V.add("comment-with-braces", ["# {"] + A + ["# }", "#}", "#{"])
    V.add("comment-close-brace-inside-record", ["{", "   n", "   Memcheck:Addr4", "   fun:a",
                                                "#}", "   fun:b", "}"])
    V.add("comment-in-truncated-tail-nc2",
          ["{", "   n", "   Memcheck:Addr4", "   fun:a", "   fun:b", "# }", "   junk", "}"], nc=2)
    V.add("comment-in-skipped-record", ["{", "   n", "   Helgrind:Race", "# }", "   junk", "}"])
    V.add("comment-at-eof-no-eol", A + ["# last"], final_eol=False)
    V.add("comment-instead-of-close-eof", ["{", "   n", "   Memcheck:Addr4", "   fun:a", "# }"])
    V.add("comment-as-frame-only", ["{", "   n", "   Memcheck:Addr4", "# fun:a", "}"])


def fam_nul(V):
    A = rec("first", "Memcheck:Addr4", ["fun:leaf_read", "fun:main"])
    V.add("nul-in-frame", rec(frames=["fun:a\0b", "fun:main"]))
    V.add("nul-in-name", rec(name="na\0me"))
    V.add("nul-after-kind", rec(kind="Memcheck:Addr4\0junk"))
    V.add("nul-after-open", rec(open_="{\0x"))
    V.add("nul-after-close", rec(close="}\0x"))
    V.add("nul-line-between-records", join(A, ["\0"], CTX_MC))
    V.add("nul-before-frame", rec(frames=["\0fun:a", "fun:main"]))
    V.add("nul-after-bad-frame", rec(frames=["fun:a", "foo:bar\0"]))


def fam_long(V):
    A = rec("first", "Memcheck:Addr4", ["fun:leaf_read", "fun:main"])
    # Lengths are of the stored line: leading whitespace is skipped and not counted,
    # trailing whitespace is stored (then stripped) and counted.
    f51199 = "fun:" + "a" * (51199 - 4)
    f51200 = "fun:" + "a" * (51200 - 4)
    assert len(f51199) == 51199 and len(f51200) == 51200
    V.add("long-frame-51199", ["{", "n", "Memcheck:Addr4", f51199, "}"])
    V.add("long-frame-51200-r2", join(A, ["{", "n", "Memcheck:Addr4", f51200, "}"]))
    V.add("long-frame-51199-indent-1000", ["{", "n", "Memcheck:Addr4", " " * 1000 + f51199, "}"])
    V.add("long-frame-51190-trailing-10", ["{", "n", "Memcheck:Addr4", f51199[:51190] + " " * 10, "}"])
    V.add("long-comment-51200", ["#" + "c" * 51199] + A)
    V.add("long-frame-51200-truncated-tail-nc1",
          ["{", "n", "Memcheck:Addr4", "fun:a", f51200, "}"], nc=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--outdir", default=OUTDIR)
    ap.add_argument("--check", action="store_true",
                    help="generate into a temp dir and compare with tests/data/variants/")
    args = ap.parse_args()

    rng = random.Random(RNG_SEED)
    seeds = pick_seeds(rng)
    V = Variants()
    fam_seeds(V, seeds, rng)
    fam_braces(V, seeds)
    fam_names(V)
    fam_tools(V)
    fam_kinds(V)
    fam_spaces(V)
    fam_extra(V)
    fam_frames(V)
    fam_locations(V)
    fam_eol(V)
    fam_comments(V)
    fam_nul(V)
    fam_long(V)

    outdir = args.outdir
    tmp = None
    if args.check:
        tmp = tempfile.mkdtemp(prefix="gen-variants.")
        outdir = tmp
    try:
        os.makedirs(outdir, exist_ok=True)
        for f in sorted(os.listdir(outdir)):
            p = os.path.join(outdir, f)
            if os.path.isfile(p) and f.endswith(".supp"):
                os.unlink(p)
        width = max(4, len(str(len(V.items))))
        names = []
        for i, (slug, nc, data) in enumerate(V.items, 1):
            name = "%0*d-%s.supp" % (width, i, slug)
            names.append(name)
            with open(os.path.join(outdir, name), "wb") as fh:
                fh.write(data)
        if args.check:
            have = sorted(f for f in os.listdir(OUTDIR) if f.endswith(".supp"))
            bad = sorted(set(have) ^ set(names))
            bad += [n for n in names if n in have and not filecmp.cmp(
                os.path.join(outdir, n), os.path.join(OUTDIR, n), shallow=False)]
            if bad:
                print("gen-variants --check: tests/data/variants differs from the generator:",
                      file=sys.stderr)
                for n in bad[:50]:
                    print("  " + n, file=sys.stderr)
                return 1
            return 0
        print("wrote %d variants to %s" % (len(V.items), os.path.relpath(outdir, ROOT)),
              file=sys.stderr)
        return 0
    finally:
        if tmp:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    sys.exit(main())

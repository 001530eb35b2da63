#!/usr/bin/env python3
"""The measuring half of Scripts/bench (run it through Scripts/bench, which builds release
and starts a private Secret Service first).

Times come from hyperfine (--export-json keeps every run: median and p95 are computed
here); peak RSS from `/usr/bin/time -f %M` over a few extra runs (the maximum is reported).
Standard library only."""

import argparse
from contextlib import closing
import datetime
import hashlib
import json
import math
import os
import platform
import random
import re
import shlex
import socket
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".build" / "bench-cache"
SCRATCH = CACHE / "scratch"
# Where the loopback WebDAV server keeps its files for the goal rows: in memory, as a server's
# own disk is not this machine's (see measure_webdav_sync).
MEMORY = Path("/dev/shm")
PASSPHRASE = "bmvault benchmark passphrase (not secret)"
SEED = 1
QUERY = "serendipity"          # in about 0.5% of annotations (Words.rare in the generator)
MISSING_QUERY = "qqzzxqq"      # in none: the pure scan cost
TWO_WORDS = "serendipity quiet"  # every word must appear: the rare word with a common one
LAST_WEEK = "2025-12-25"        # the generated journal's last seven days (it ends 2025-12-31)
KDF_NOTE = "Argon2id interactive (opslimit 2, memlimit 64 MiB), as bmvault-bench-journal creates the vault"
NOTE_TEXT = ("A benchmark note, written one process at a time: the reader closes the book, thinks for a "
             "moment, and types a few sentences about the chapter, the way a journal grows over five years. "
             "Nothing here is real content; it only has the size of a typical note, about three hundred bytes.")
JRNL_VERSION = "4.6"
SIZES = {"10k": 10_000, "100k": 100_000, "1M": 1_000_000}
SYNC_ANNOTATIONS = 7_042       # + 2,816 sessions + 140 books = 9,998 records, one operation each
MiB = 1024 * 1024
# The row groups `--only` selects.
ONLY_ROWS = {"note", "list", "books", "stats", "show", "search", "status", "export", "import", "sync", "migrate", "unlock", "size",
             "capture", "kindle", "goodreads", "koreader-stats", "device", "file", "notes"}
KINDLE_CLIPPINGS = 10_000      # issue 20: a My Clippings.txt of this many clippings
GOODREADS_ROWS = 20_000        # issue 40: a Goodreads library export of this many books
STATISTICS_DAYS = 365          # issue 43: KOReader statistics of a year of daily reading...
STATISTICS_TURNS = 7_000       # ... about this many page turns
KOBO_BYTES = 3 * MiB           # issue 43: a reading device's Kobo database about this large
BOOK_FILE_BYTES = 200_000_000  # issue 19: `file add` of a PDF this large
# Issue 16's goal for capture against jrnl's add: bmvault / jrnl at most this, per journal size.
CAPTURE_GOALS = {"empty": 0.25, "100k": 0.02}


def log(message):
    print(message, file=sys.stderr, flush=True)


def run(argv, **kwargs):
    return subprocess.run(argv, check=True, **kwargs)


# MARK: - Statistics and formatting

def median(values):
    ordered = sorted(values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def p95(values):
    """Nearest-rank 95th percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def fmt_time(seconds):
    if seconds is None:
        return "—"
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


def fmt_bytes(count):
    if count is None:
        return "—"
    if count >= 10 * MiB:
        return f"{count / MiB:.0f} MiB"
    if count >= MiB:
        return f"{count / MiB:.1f} MiB"
    return f"{count / 1024:.0f} KiB"


# MARK: - Measuring

class Bench:
    def __init__(self, args):
        self.args = args
        self.bin = Path(args.bin_dir) / "bmvault"
        self.generator = Path(args.bin_dir) / "bmvault-bench-journal"
        self.rows = []
        self.compare_rows = []
        self.env = dict(os.environ, TZ="UTC", LC_ALL="C.UTF-8")
        self.env.pop("BMVAULT_HOME", None)
        self.runs = args.runs
        self.slow_runs = max(3, min(args.runs, 10))
        self.rss_runs = args.rss_runs
        self.only = set(args.only.split(",")) if args.only else None
        self.last_cpu = None
        self.load_start = os.getloadavg()

    def wants(self, *groups):
        """Whether `--only` (if given) names any of `groups`."""
        return self.only is None or not self.only.isdisjoint(groups)

    # hyperfine: every run's wall time
    def hyperfine(self, command, runs, warmup=2, prepare=None, shell=False):
        """`command` is an argv list (run without a shell, -N) or, with shell=True, a shell
        string (hyperfine subtracts the shell's own start-up time)."""
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as export:
            export_path = export.name
        try:
            argv = ["hyperfine", "--style", "none", "--runs", str(runs), "--warmup", str(warmup),
                    "--export-json", export_path]
            if prepare:
                # With -N hyperfine runs --prepare without a shell too: `rm -rf A && cp -r B A`
                # would then remove B. Give it a shell explicitly.
                argv += ["--prepare", prepare if shell else shlex.join(["sh", "-c", prepare])]
            if not shell:
                argv += ["-N"]
            argv.append(command if shell else shlex.join(str(a) for a in command))
            result = subprocess.run(argv, env=self.env, capture_output=True, text=True)
            if result.returncode != 0:
                raise RuntimeError(f"hyperfine failed: {result.stderr.strip()[-2000:]}")
            with open(export_path) as handle:
                result = json.load(handle)["results"][0]
            self.last_cpu = result.get("user", 0) + result.get("system", 0)
            return result["times"]
        finally:
            os.unlink(export_path)

    def peak_rss(self, argv, runs=None, stdin_path=None, prepare=None):
        """Maximum resident set size, in bytes, over `runs` runs of argv under /usr/bin/time."""
        peak = 0
        for _ in range(runs or self.rss_runs):
            if prepare:
                subprocess.run(prepare, shell=True, check=True, env=self.env)
            with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as out:
                stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
                try:
                    result = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name] + [str(a) for a in argv],
                                            env=self.env, stdin=stdin, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE, text=True)
                finally:
                    if stdin_path:
                        stdin.close()
                if result.returncode != 0:
                    raise RuntimeError(f"{argv[0]} exited {result.returncode}: {result.stderr.strip()[-1000:]}")
                text = Path(out.name).read_text().strip().splitlines()
                peak = max(peak, int(text[-1]) * 1024)
        return peak

    def bmvault(self, vault, *words):
        return [str(self.bin), "--vault", str(vault)] + [str(w) for w in words]

    def check_runs(self, argv, stdin_path=None):
        """Runs argv once and fails loudly (with its stderr) if it does not exit 0."""
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        try:
            result = subprocess.run([str(a) for a in argv], env=self.env, stdin=stdin,
                                    capture_output=True, text=True)
        finally:
            if stdin_path:
                stdin.close()
        if result.returncode != 0:
            raise RuntimeError(f"`{shlex.join(map(str, argv[:6]))} ...` exited {result.returncode}: "
                               f"{result.stderr.strip()[-1000:]}")
        return result.stdout

    def has_command(self, *words):
        result = subprocess.run([str(self.bin), "help", *words], env=self.env, capture_output=True)
        return result.returncode == 0

    # MARK: rows

    def add_row(self, operation, size, times=None, rss=None, target="", met=None, value=None, note="", cpu=None,
                argv=None, prepare=None):
        row = {"operation": operation, "size": size, "median": median(times) if times else None,
               "p95": p95(times) if times else None, "runs": len(times) if times else 0,
               "rss": rss, "target": target, "met": met, "value": value, "note": note, "cpu": cpu,
               "argv": [str(a) for a in argv] if argv else None, "prepare": prepare}
        self.rows.append(row)
        shown = value if value is not None else f"median {fmt_time(row['median'])}, p95 {fmt_time(row['p95'])}"
        log(f"  {operation} [{size}]: {shown}" + (f", peak RSS {fmt_bytes(rss)}" if rss else "")
            + (f" ({note})" if note else ""))
        return row

    def timed_row(self, operation, size, argv, runs, target_seconds=None, target_rss=None, target="",
                  prepare=None, shell_command=None, stdin_path=None, note=""):
        try:
            if not prepare:  # with --prepare the command may only work on a fresh copy
                self.check_runs(argv, stdin_path=stdin_path)
            times = self.hyperfine(shell_command or argv, runs, prepare=prepare, shell=shell_command is not None,
                                   warmup=0 if prepare else 2)
            rss = self.peak_rss(argv, stdin_path=stdin_path, prepare=prepare,
                                runs=self.rss_runs if runs >= 10 else max(2, self.rss_runs // 2))
        except RuntimeError as error:
            return self.add_row(operation, size, target=target, met=False, value="FAILED", note=str(error)[:300])
        met = None
        if target_seconds is not None:
            met = median(times) <= target_seconds
            if target_rss is not None:
                met = met and rss <= target_rss
        return self.add_row(operation, size, times, rss, target, met, note=note, cpu=self.last_cpu,
                            argv=argv, prepare=prepare)

    def not_built(self, operation, target):
        self.add_row(operation, "100k", target=target, value="not built yet")

    # MARK: - Vaults

    def generator_hash(self):
        digest = hashlib.sha256(self.generator.read_bytes()).hexdigest()
        return digest[:16]

    def cached_vault(self, label, synced_remote=False):
        """The generated vault for `label` (10k, 100k, 1M), made if missing or stale; with
        `synced_remote`, the same journal synced long ago through one remote."""
        count = SIZES[label]
        kind = f"{label}-synced" if synced_remote else label
        key = f"{kind}-{self.generator_hash()}"
        directory = CACHE / key
        for stale in CACHE.glob(f"{kind}-*"):
            if stale.name != key and stale.is_dir():
                log(f"removing stale cache {stale.name} (the generator changed)")
                shutil.rmtree(stale)
        if not (directory / "complete").exists():
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir(parents=True)
            log(f"generating the {label} journal (seed {SEED}) in {directory.relative_to(ROOT)} ...")
            started = time.monotonic()
            result = subprocess.run([str(self.generator), "--vault", str(directory / "vault"), "--annotations",
                                     str(count), "--seed", str(SEED), "--passphrase-stdin"]
                                    + (["--synced-remote"] if synced_remote else []),
                                    input=PASSPHRASE + "\n", text=True, capture_output=True, env=self.env)
            if result.returncode != 0:
                raise SystemExit(f"the generator failed: {result.stderr}")
            log(result.stderr.strip())
            database = directory / "vault" / "vault.db"
            # Fold any WAL into the main file, so a copy is one self-contained file.
            connection = sqlite3.connect(database)
            try:
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                connection.close()
            summary = {"annotations": count, "seed": SEED, "seconds": round(time.monotonic() - started, 2),
                       "generator": result.stderr.strip()}
            (directory / "complete").write_text(json.dumps(summary, indent=2) + "\n")
        return directory

    def scratch_copy(self, source_vault, name):
        """A fresh copy of a vault directory under the scratch dir (same file system as the cache)."""
        target = SCRATCH / name
        shutil.rmtree(target, ignore_errors=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(source_vault, target)
        return target

    def passphrase_file(self):
        path = SCRATCH / "passphrase"
        if not path.exists():
            SCRATCH.mkdir(parents=True, exist_ok=True)
            path.write_text(PASSPHRASE + "\n")
            path.chmod(0o600)
        return path

    def fresh_vault_command(self, vault):
        """A shell command that makes `vault` a new, unlocked, empty vault (removing any left
        from the run before): a `--prepare` for rows that write into an empty vault."""
        passphrase = self.passphrase_file()
        return (f"rm -rf {shlex.quote(str(vault))} && "
                f"{shlex.join(self.bmvault(vault, 'init', '--passphrase-stdin', '--kdf', 'interactive'))}"
                f" < {shlex.quote(str(passphrase))} > /dev/null 2>&1 && "
                f"{shlex.join(self.bmvault(vault, 'unlock', '--passphrase-stdin'))}"
                f" < {shlex.quote(str(passphrase))} 2> /dev/null")

    def unlock(self, vault):
        self.check_runs(self.bmvault(vault, "unlock", "--passphrase-stdin", "--timeout", "4h"),
                        stdin_path=self.passphrase_file())

    @staticmethod
    def book_count(label):
        return max(1, SIZES[label] // 50)

    @staticmethod
    def book_name(label):
        """A title prefix naming one book in the middle of the journal: `Book 01000`."""
        return f"Book {Bench.book_count(label) // 2:05d}"

    @staticmethod
    def unique_prefix(vault, identifier):
        """The shortest prefix of `identifier`, at least 8 characters (the short form bmvault
        uses), that names one live record: what a reader would type."""
        with closing(sqlite3.connect(f"file:{vault / 'vault.db'}?mode=ro", uri=True)) as connection:
            for length in range(8, len(identifier) + 1):
                pattern = identifier[:length] + "*"
                (count,) = connection.execute(
                    "SELECT (SELECT count(*) FROM book WHERE id GLOB ?1 AND deleted_at IS NULL)"
                    " + (SELECT count(*) FROM reading_session WHERE id GLOB ?1)"
                    " + (SELECT count(*) FROM annotation WHERE id GLOB ?1 AND deleted_at IS NULL)",
                    (pattern,)).fetchone()
                if count == 1:
                    return identifier[:length]
        return identifier

    @staticmethod
    def sample_annotation(vault):
        with closing(sqlite3.connect(f"file:{vault / 'vault.db'}?mode=ro", uri=True)) as connection:
            (count,) = connection.execute("SELECT count(*) FROM annotation WHERE deleted_at IS NULL").fetchone()
            (identifier,) = connection.execute(
                "SELECT id FROM annotation WHERE deleted_at IS NULL ORDER BY id LIMIT 1 OFFSET ?", (count // 2,)).fetchone()
        return identifier

    # MARK: - The rows of issue 7

    def measure_size(self, label, full):
        if not self.wants("note") and not (full and self.wants("list", "books", "stats", "show", "search", "status")):
            return
        source = self.cached_vault(label) / "vault"
        vault = self.scratch_copy(source, f"vault-{label}")
        self.unlock(vault)
        log(f"measuring at {label} ({vault.relative_to(ROOT)})")

        note_runs = self.runs if label != "1M" else max(10, min(self.runs, 30))
        if self.wants("note"):
            self.timed_row("`note add BOOK TEXT` (unlocked, one process per note)", label,
                           self.bmvault(vault, "note", "add", self.book_name(label), NOTE_TEXT), note_runs,
                           target_seconds=0.015, target="median ≤ 15 ms")
        if not full:
            return
        identifier = self.sample_annotation(vault)
        if self.wants("list"):
            self.timed_row("`list --book BOOK`", label, self.bmvault(vault, "list", "--book", self.book_name(label)),
                           self.runs, target_seconds=0.020, target="≤ 20 ms", note=f"~{SIZES[label] // self.book_count(label)} annotations listed")
            self.timed_row(f"`list --since {LAST_WEEK}` (the journal's last week)", label,
                           self.bmvault(vault, "list", "--since", LAST_WEEK), self.runs, target_seconds=0.020,
                           target="≤ 20 ms (`list --book`'s target)", note=f"~{SIZES[label] * 7 // 1825} annotations listed")
        if self.wants("books"):
            self.timed_row("`book list` (every book, with its counts and last session)", label, self.bmvault(vault, "book", "list"),
                           self.runs, target_seconds=0.050, target="≤ 50 ms", note=f"{self.book_count(label)} books")
        if self.wants("stats"):
            self.timed_row("`stats` (every session and finish)", label, self.bmvault(vault, "stats"),
                           self.runs, target_seconds=0.500, target="≤ 500 ms")
        if self.wants("show"):
            self.timed_row("`show ID` (full id)", label, self.bmvault(vault, "show", identifier), self.runs,
                           target_seconds=0.020, target="≤ 20 ms")
            prefix = self.unique_prefix(vault, identifier)
            self.timed_row(f"`show ID` (unique {len(prefix)}-character prefix)", label,
                           self.bmvault(vault, "show", prefix), self.runs, target_seconds=0.020, target="≤ 20 ms")
        search_runs = self.slow_runs if label != "1M" else 3
        if self.wants("search"):
            self.timed_row(f"`search {QUERY}` (~0.5% match)", label, self.bmvault(vault, "search", QUERY), search_runs,
                           target_seconds=0.300, target_rss=64 * MiB, target="≤ 300 ms, ≤ 64 MiB")
            self.timed_row(f"`search {TWO_WORDS}` (two words, both must appear)", label,
                           self.bmvault(vault, "search", TWO_WORDS), search_runs,
                           target_seconds=0.300, target_rss=64 * MiB, target="≤ 300 ms, ≤ 64 MiB")
            self.timed_row(f"`search {MISSING_QUERY}` (no match: the scan alone)", label,
                           self.bmvault(vault, "search", MISSING_QUERY), search_runs,
                           target_seconds=0.300, target_rss=64 * MiB, target="≤ 300 ms, ≤ 64 MiB")
        if self.wants("status"):
            self.timed_row("`status` (counts; no migration)", label, self.bmvault(vault, "status"), self.runs,
                           target="reported")

    def measure_size_on_disk(self, label):
        if not self.wants("size"):
            return
        variants = [(False, "no remote")] + ([(True, "one remote, fully synced")] if label == "100k" else [])
        for synced_remote, setting in variants:
            database = self.cached_vault(label, synced_remote) / "vault" / "vault.db"
            size = database.stat().st_size
            per = size / SIZES[label]
            breakdown = self.table_sizes(database)
            note = ", ".join(f"{name} {share:.0%}" for name, share in breakdown[:4]) if breakdown else ""
            # Issue 17: the outbox compacted, at most 1,000 B per annotation at 100k.
            met = per <= 1000 if label == "100k" else None
            self.add_row(f"vault size on disk ({setting})", label, target="≤ 1,000 B/annotation" if label == "100k" else "reported",
                         met=met, value=f"{per:,.0f} B/annotation ({fmt_bytes(size)})", note=note)

    @staticmethod
    def table_sizes(database):
        """Share of the file per table (with its indexes), when the sqlite3 CLI has dbstat."""
        try:
            out = subprocess.run(["sqlite3", "-readonly", str(database),
                                  "SELECT coalesce(m.tbl_name, s.name), sum(s.pgsize) FROM dbstat s "
                                  "LEFT JOIN sqlite_master m ON m.name = s.name GROUP BY 1 ORDER BY 2 DESC"],
                                 capture_output=True, text=True, check=True).stdout
        except (subprocess.CalledProcessError, FileNotFoundError):
            return []
        rows = [line.rsplit("|", 1) for line in out.splitlines() if "|" in line]
        total = sum(int(size) for _, size in rows) or 1
        return [(name, int(size) / total) for name, size in rows]

    def measure_unlock(self, label):
        if not self.wants("unlock"):
            return
        vault = self.scratch_copy(self.cached_vault(label) / "vault", f"unlock-{label}")
        passphrase = self.passphrase_file()
        argv = self.bmvault(vault, "unlock", "--passphrase-stdin", "--timeout", "4h")
        self.timed_row("`unlock` (passphrase on stdin)", label, argv, self.slow_runs,
                       shell_command=f"{shlex.join(argv)} < {shlex.quote(str(passphrase))}",
                       stdin_path=passphrase, target="reported", note=KDF_NOTE)

    def measure_not_yet_built(self, vault_label):
        if self.wants("export", "import"):
            self.measure_archive(vault_label)
        if self.wants("notes"):
            self.measure_notes_folder(vault_label)
        if self.wants("kindle"):
            self.measure_kindle_import()
        if self.wants("goodreads"):
            self.measure_goodreads_import()
        if self.wants("koreader-stats"):
            self.measure_statistics_import()
        if self.wants("device"):
            self.measure_device_import()
        if self.wants("file") and self.has_command("file", "add"):
            self.measure_file_add()
        if self.wants("sync"):
            if self.has_command("sync") and self.has_command("remote", "add"):
                self.measure_sync()
                if self.has_command("remote", "password"):
                    self.measure_webdav_sync(MEMORY if MEMORY.is_dir() else None, with_goal=True)
                    if Path("/usr/sbin/lighttpd").exists():
                        self.measure_webdav_sync(None, with_goal=False)
            else:
                self.add_row("`sync` push of 10,000 operations / pull + apply", "10k ops", target="≤ 3 s each",
                             value="not built yet")

    def measure_archive(self, vault_label):
        """`export --out DIR` of the generated vault, and `import DIR` of that archive into a
        fresh vault (each run on a fresh copy or a fresh vault)."""
        if not self.has_command("export"):
            self.not_built("`export --out DIR`", "≤ 1.5 s, ≤ 64 MiB")
            self.not_built("`import DIR` into a fresh vault", "≤ 2 s, ≤ 64 MiB")
            return
        source = self.cached_vault(vault_label) / "vault"
        vault = self.scratch_copy(source, f"export-{vault_label}")
        self.unlock(vault)
        # The archive (2,000 new files) is written outside .build, and the previous run's
        # archive is moved aside, not deleted, until the row is done: ext4 will not reuse the
        # inodes of files deleted in the last seconds to minutes (`recently_deleted`) and
        # scans past every one of them for each new file, so among a build's freshly deleted
        # objects, or after deleting the previous run's archive, creating the files costs
        # seconds of kernel time that are no cost of an export.
        archive_root = Path(tempfile.mkdtemp(prefix="bmvault-bench-archive-"))
        try:
            self.measure_archive_rows(vault, vault_label, archive_root / f"export-out-{vault_label}", archive_root / "aside")
        finally:
            shutil.rmtree(archive_root, ignore_errors=True)

    def measure_archive_rows(self, vault, vault_label, out, aside):
        if self.wants("export"):
            move_aside = (f"mkdir -p {shlex.quote(str(aside))} && if [ -d {shlex.quote(str(out))} ]; then "
                          f"mv {shlex.quote(str(out))} {shlex.quote(str(aside))}/$(date +%s%N); fi")
            self.timed_row("`export --out DIR`", vault_label, self.bmvault(vault, "export", "--out", out), self.slow_runs,
                           prepare=move_aside, target_seconds=1.5, target_rss=64 * MiB, target="≤ 1.5 s, ≤ 64 MiB")
        if not self.wants("import"):
            return
        if not self.has_command("import"):
            self.not_built("`import DIR` into a fresh vault", "≤ 2 s, ≤ 64 MiB")
            return
        if not out.exists():
            self.check_runs(self.bmvault(vault, "export", "--out", out))
        fresh = SCRATCH / f"import-{vault_label}"
        prepare = self.fresh_vault_command(fresh)
        self.timed_row("`import DIR` into a fresh vault", vault_label, self.bmvault(fresh, "import", out),
                       self.slow_runs, prepare=prepare, target_seconds=2.0, target_rss=64 * MiB,
                       target="≤ 2 s, ≤ 64 MiB")

    # MARK: a notes folder

    def measure_notes_folder(self, vault_label):
        """Issue 46: `export --markdown-folder DIR` of the generated vault into an empty folder
        (≤ 2 s), and again into the folder it wrote with nothing changed (≤ 0.5 s, and not one
        file written: every file's modification time is compared before and after the runs)."""
        operation = "`export --markdown-folder DIR` into an empty folder"
        again = "`export --markdown-folder DIR` again, nothing changed"
        help_text = subprocess.run([str(self.bin), "help", "export"], env=self.env, capture_output=True, text=True).stdout
        if "--markdown-folder" not in help_text:
            self.not_built(operation, "≤ 2 s")
            self.not_built(again, "≤ 0.5 s, 0 files written")
            return
        vault = self.scratch_copy(self.cached_vault(vault_label) / "vault", f"notes-{vault_label}")
        self.unlock(vault)
        # As for the archive: each run's folder is moved aside, not deleted, until the row is
        # done (ext4 scans past freshly deleted inodes for every new file).
        root = Path(tempfile.mkdtemp(prefix="bmvault-bench-notes-"))
        try:
            out, aside = root / f"notes-{vault_label}", root / "aside"
            move_aside = (f"mkdir -p {shlex.quote(str(aside))} && if [ -d {shlex.quote(str(out))} ]; then "
                          f"mv {shlex.quote(str(out))} {shlex.quote(str(aside))}/$(date +%s%N); fi")
            self.timed_row(operation, vault_label, self.bmvault(vault, "export", "--markdown-folder", out), self.slow_runs,
                           prepare=move_aside, target_seconds=2.0, target="≤ 2 s")
            shutil.rmtree(aside, ignore_errors=True)
            if not out.exists():
                self.check_runs(self.bmvault(vault, "export", "--markdown-folder", out))

            def times():
                return {str(path.relative_to(out)): path.stat().st_mtime_ns for path in out.rglob("*")}

            before = times()
            row = self.timed_row(again, vault_label, self.bmvault(vault, "export", "--markdown-folder", out), self.runs,
                                 target_seconds=0.5, target="≤ 0.5 s, 0 files written")
            after = times()
            written = sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name))
            notes = sum(1 for name in before if name.endswith(".md"))
            if row is not None:
                row["note"] = (f"{notes} notes; {len(written)} files written or removed by the runs"
                               + (f" (e.g. {written[0]})" if written else ""))
                if written:
                    row["met"] = False
        finally:
            shutil.rmtree(root, ignore_errors=True)

    # MARK: importing another program's file

    @staticmethod
    def kindle_clippings(path, count=KINDLE_CLIPPINGS):
        """A My Clippings.txt as a Kindle writes it, seeded: 200 books, highlights with a note
        typed on every tenth, a re-highlight of every fiftieth, bookmarks; the BOM at the start
        of most records, CR LF framing, English dates of both kinds."""
        rng = random.Random(SEED)
        words = ("the reader closes book and thinks about chapter light river memory winter garden letter city "
                 "silence morning promise stranger journey harbour candle mirror").split()
        months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                  "November", "December"]
        records = []
        location = {}
        while len(records) < count:
            book = rng.randrange(200)
            title = f"Bench Book {book}: A Novel (Author{book}, Some)"
            start = location.get(book, 100) + rng.randrange(5, 60)
            end = start + rng.randrange(1, 6)
            location[book] = end
            day, month, year = rng.randrange(1, 29), rng.randrange(12), rng.randrange(2015, 2026)
            hour, minute, second = rng.randrange(24), rng.randrange(60), rng.randrange(60)
            date = (f"Added on Monday, {day} {months[month]} {year} {hour:02}:{minute:02}:{second:02}" if rng.random() < 0.5 else
                    f"Added on Monday, {months[month]} {day}, {year} {hour % 12 or 12}:{minute:02}:{second:02} {'PM' if hour >= 12 else 'AM'}")
            text = " ".join(rng.choice(words) for _ in range(rng.randrange(12, 60))).capitalize() + "."
            bom = "\ufeff" if rng.random() < 0.8 else ""
            if rng.random() < 0.03:
                records.append(f"{bom}{title}\r\n- Your Bookmark on page {start // 20} | location {start} | {date}\r\n\r\n\r\n")
                continue
            records.append(f"{bom}{title}\r\n- Your Highlight on page {start // 20} | location {start}-{end} | {date}\r\n\r\n{text}\r\n")
            if len(records) % 10 == 0:
                records.append(f"{bom}{title}\r\n- Your Note on page {start // 20} | location {end} | {date}\r\n\r\n"
                               f"My thought on it: {rng.choice(words)} and {rng.choice(words)}.\r\n")
            if len(records) % 50 == 0:
                records.append(f"{bom}{title}\r\n- Your Highlight on page {start // 20} | location {start}-{end} | {date}\r\n\r\n{text}\r\n")
        path.write_text("".join(record + "==========\r\n" for record in records[:count]), encoding="utf-8")

    def measure_kindle_import(self):
        """Issue 20: `import My Clippings.txt` of 10,000 clippings into a fresh vault (≤ 1 s), and
        the same file again into the vault that has it (≤ 0.5 s: nothing is added)."""
        clippings = SCRATCH / "My Clippings.txt"
        self.kindle_clippings(clippings)
        fresh = SCRATCH / "kindle-fresh"
        prepare = self.fresh_vault_command(fresh)
        size = f"{KINDLE_CLIPPINGS // 1000}k clippings"
        self.timed_row("`import My Clippings.txt` into a fresh vault", size, self.bmvault(fresh, "import", clippings),
                       self.slow_runs, prepare=prepare, target_seconds=1.0, target_rss=64 * MiB, target="≤ 1 s, ≤ 64 MiB")
        again = SCRATCH / "kindle-again"
        subprocess.run(self.fresh_vault_command(again), shell=True, check=True, env=self.env)
        self.check_runs(self.bmvault(again, "import", clippings))
        self.timed_row("`import My Clippings.txt` again (adds nothing)", size, self.bmvault(again, "import", clippings),
                       self.slow_runs, target_seconds=0.5, target_rss=64 * MiB, target="≤ 0.5 s, ≤ 64 MiB")

    @staticmethod
    def goodreads_export(path, count=GOODREADS_ROWS):
        """A goodreads_library_export.csv with Goodreads' 23 columns, seeded: `count` distinct
        books (a Book Id each, an ISBN on most), shelves, ratings on a third, dates read on the
        read ones; quoting as Goodreads writes it (`="..."` around ISBNs)."""
        rng = random.Random(SEED)
        words = ("river winter garden letter city silence morning promise stranger journey harbour candle "
                 "mirror light memory house sea night").split()
        header = ("Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Publisher,Binding,"
                  "Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,"
                  "Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies")
        rows = [header]
        for index in range(count):
            title = " ".join(rng.choice(words) for _ in range(rng.randrange(2, 6))).title() + f" {index}"
            first, last = rng.choice(words).title(), rng.choice(words).title() + "son"
            isbn = f"{rng.randrange(10**9, 10**10)}" if rng.random() < 0.8 else ""
            shelf = rng.choice(["read", "to-read", "currently-reading"])
            rating = rng.randrange(1, 6) if shelf == "read" and rng.random() < 0.33 else 0
            added = f"{rng.randrange(2012, 2026)}/{rng.randrange(1, 13):02}/{rng.randrange(1, 29):02}"
            read = added if shelf == "read" else ""
            rows.append(",".join([str(1_000_000 + index), f'"{title}"', f"{first} {last}", f'"{last}, {first}"', "",
                                  f'"=""{isbn}"""' if isbn else '""', '""', str(rating), "Bench Press", "Paperback",
                                  str(rng.randrange(80, 900)), str(rng.randrange(1900, 2026)), "", read, added, "", "",
                                  shelf, "", "", "", "1" if shelf == "read" else "0", "0"]))
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")

    def measure_goodreads_import(self):
        """Issue 40: `import goodreads_library_export.csv` of 20,000 books into a fresh vault
        (≤ 2 s): each row's book matched in constant time, not against every book."""
        export = SCRATCH / "goodreads_library_export.csv"
        self.goodreads_export(export)
        fresh = SCRATCH / "goodreads-fresh"
        prepare = self.fresh_vault_command(fresh)
        self.timed_row("`import goodreads_library_export.csv` into a fresh vault", f"{GOODREADS_ROWS // 1000}k books",
                       self.bmvault(fresh, "import", export), self.slow_runs, prepare=prepare,
                       target_seconds=2.0, target_rss=64 * MiB, target="≤ 2 s, ≤ 64 MiB")

    @staticmethod
    def koreader_statistics(path, days=STATISTICS_DAYS, turns=STATISTICS_TURNS):
        """A KOReader statistics.sqlite3 with the plugin's own schema (as the real file in
        ../shared/fixtures/importers/koreader-stats has it), seeded: a year of daily reading,
        a sitting or two a day in one of a dozen books, `turns` page turns in all (10 to 120
        seconds each, a pause now and then)."""
        import sqlite3
        rng = random.Random(SEED)
        path.unlink(missing_ok=True)
        db = sqlite3.connect(path)
        db.executescript("""
            CREATE TABLE book (id integer PRIMARY KEY autoincrement, title text, authors text, notes integer,
                last_open integer, highlights integer, pages integer, series text, language text, md5 text,
                total_read_time integer, total_read_pages integer);
            CREATE UNIQUE INDEX book_title_authors_md5 ON book(title, authors, md5);
            CREATE TABLE page_stat_data (id_book integer, page integer NOT NULL DEFAULT 0, start_time integer NOT NULL DEFAULT 0,
                duration integer NOT NULL DEFAULT 0, total_pages integer NOT NULL DEFAULT 0,
                UNIQUE (id_book, page, start_time), FOREIGN KEY(id_book) REFERENCES book(id));
            CREATE INDEX page_stat_data_start_time ON page_stat_data(start_time);
            CREATE TABLE numbers (number INTEGER PRIMARY KEY);
            """)
        books = 12
        for index in range(books):
            db.execute("INSERT INTO book (title, authors, notes, last_open, highlights, pages, series, language, md5) "
                       "VALUES (?, ?, 0, 0, 0, ?, 'N/A', 'en', ?)",
                       (f"Bench Book {index}", f"Bench Author {index % 5}", 400, f"{rng.getrandbits(128):032x}"))
        page = [1] * books
        start = 1_704_067_200  # 2024-01-01 UTC
        rows = []
        per_day = turns // days + 1
        for day in range(days):
            book = rng.randrange(books)
            moment = start + day * 86_400 + rng.randrange(6 * 3600, 22 * 3600)
            for _ in range(per_day):
                if len(rows) == turns:
                    break
                seconds = rng.randrange(10, 121)
                rows.append((book + 1, page[book], moment, seconds, 400))
                page[book] = page[book] % 400 + 1
                moment += seconds + (rng.randrange(1_000, 3_000) if rng.random() < 0.05 else 0)
        db.executemany("INSERT INTO page_stat_data VALUES (?, ?, ?, ?, ?)", rows)
        db.commit()
        db.close()

    def measure_statistics_import(self):
        """Issue 43: `import statistics.sqlite3` of a year of daily reading (about 7,000 page
        turns) into a fresh vault (≤ 0.5 s), and again into the vault that has it (≤ half)."""
        statistics = SCRATCH / "statistics.sqlite3"
        self.koreader_statistics(statistics)
        fresh = SCRATCH / "statistics-fresh"
        size = f"{STATISTICS_TURNS // 1000}k page turns"
        self.timed_row("`import statistics.sqlite3` (KOReader) into a fresh vault", size, self.bmvault(fresh, "import", statistics),
                       self.slow_runs, prepare=self.fresh_vault_command(fresh), target_seconds=0.5, target_rss=64 * MiB,
                       target="≤ 0.5 s, ≤ 64 MiB")
        again = SCRATCH / "statistics-again"
        subprocess.run(self.fresh_vault_command(again), shell=True, check=True, env=self.env)
        self.check_runs(self.bmvault(again, "import", statistics))
        self.timed_row("`import statistics.sqlite3` (KOReader) again (adds nothing)", size, self.bmvault(again, "import", statistics),
                       self.slow_runs, target_seconds=0.25, target_rss=64 * MiB, target="≤ 0.25 s, ≤ 64 MiB")

    # Kobo's own schema for the two tables bmvault reads, as the real KoboReader.sqlite in
    # ../shared/fixtures/importers/kobo has them (firmware 4.x), with the indexes it has.
    KOBO_SCHEMA = """
        CREATE TABLE content( ContentID TEXT NOT NULL, ContentType TEXT NOT NULL, MimeType TEXT NOT NULL, BookID TEXT,
            BookTitle TEXT, ImageId TEXT, Title TEXT COLLATE NOCASE, Attribution TEXT COLLATE NOCASE, Description TEXT,
            DateCreated TEXT, ShortCoverKey TEXT, adobe_location TEXT, Publisher TEXT, IsEncrypted BOOL, DateLastRead TEXT,
            FirstTimeReading BOOL, ChapterIDBookmarked TEXT, ParagraphBookmarked INTEGER, BookmarkWordOffset INTEGER,
            NumShortcovers INTEGER, VolumeIndex INTEGER, ___NumPages INTEGER, ReadStatus INTEGER, ___SyncTime TEXT,
            ___UserID TEXT NOT NULL, PublicationId TEXT, ___FileOffset INTEGER, ___FileSize INTEGER, ___PercentRead INTEGER,
            ___ExpirationStatus INTEGER, FavouritesIndex NOT NULL DEFAULT -1, Accessibility INTEGER DEFAULT 1, ContentURL TEXT,
            Language TEXT, BookshelfTags TEXT, IsDownloaded BIT NOT NULL DEFAULT 1, FeedbackType INTEGER DEFAULT 0,
            AverageRating INTEGER DEFAULT 0, Depth INTEGER, PageProgressDirection TEXT, InWishlist BOOL NOT NULL DEFAULT FALSE,
            ISBN TEXT, WishlistedDate TEXT DEFAULT "0000-00-00T00:00:00.000", FeedbackTypeSynced INTEGER DEFAULT 0,
            IsSocialEnabled BOOL NOT NULL DEFAULT TRUE, EpubType INT NOT NULL DEFAULT -1, Monetization INTEGER DEFAULT 2,
            ExternalId TEXT, Series TEXT, SeriesNumber TEXT, Subtitle TEXT, WordCount INTEGER DEFAULT -1, Fallback TEXT,
            RestOfBookEstimate INTEGER, CurrentChapterEstimate INTEGER, CurrentChapterProgress FLOAT, PocketStatus INTEGER DEFAULT 0,
            UnsyncedPocketChanges TEXT, ImageUrl TEXT, DateAdded TEXT, WorkId TEXT, Properties TEXT, RenditionSpread TEXT,
            RatingCount INTEGER DEFAULT 0, ReviewsSyncDate TEXT, MediaOverlay TEXT, MediaOverlayType TEXT, RedirectPreviewUrl TEXT,
            PreviewFileSize INTEGER, EntitlementId TEXT, CrossRevisionId TEXT, DownloadUrl TEXT, ReadStateSynced BIT NOT NULL DEFAULT false,
            TimesStartedReading INTEGER, TimeSpentReading INTEGER, LastTimeStartedReading TEXT, LastTimeFinishedReading TEXT,
            ApplicableSubscriptions TEXT, ExternalIds TEXT, PurchaseRevisionId TEXT, SeriesID TEXT, SeriesNumberFloat REAL,
            AdobeLoanExpiration TEXT, HideFromHomePage bit, IsInternetArchive BOOL NOT NULL DEFAULT FALSE, titleKana TEXT,
            subtitleKana TEXT, seriesKana TEXT, attributionKana TEXT, publisherKana TEXT, IsPurchaseable BOOL DEFAULT TRUE,
            IsSupported BOOL DEFAULT TRUE, AnnotationsSyncToken TEXT, DateModified TEXT DEFAULT "0000-00-00T00:00:00.000",
            StorePages INTEGER DEFAULT 0, StoreWordCount INTEGER DEFAULT 0, StoreTimeToReadLowerEstimate INTEGER DEFAULT 0,
            StoreTimeToReadUpperEstimate INTEGER DEFAULT 0, Duration INTEGER DEFAULT 0, IsAbridged BOOL DEFAULT NULL,
            SyncConflictType INTEGER DEFAULT 0, PRIMARY KEY (ContentID) );
        CREATE TABLE Bookmark ( BookmarkID TEXT NOT NULL, VolumeID TEXT NOT NULL, ContentID TEXT NOT NULL,
            StartContainerPath TEXT NOT NULL, StartContainerChildIndex INTEGER NOT NULL, StartOffset INTEGER NOT NULL,
            EndContainerPath TEXT NOT NULL, EndContainerChildIndex INTEGER NOT NULL, EndOffset INTEGER NOT NULL, Text TEXT,
            Annotation TEXT, ExtraAnnotationData BLOB, DateCreated TEXT, ChapterProgress REAL NOT NULL DEFAULT 0,
            Hidden BOOL NOT NULL DEFAULT 0, Version TEXT, DateModified TEXT, Creator TEXT, UUID TEXT, UserID TEXT, SyncTime TEXT,
            Published BIT default false, ContextString TEXT, Type TEXT, PRIMARY KEY (BookmarkID) );
        CREATE INDEX content_bookid_index ON content (BookID);
        CREATE INDEX bookmark_content ON bookmark (ContentID);
        CREATE INDEX bookmark_volume ON bookmark (VolumeID);
        """

    @staticmethod
    def kobo_database(path, size=KOBO_BYTES):
        """A KoboReader.sqlite with Kobo's schema (``KOBO_SCHEMA``), seeded, of about `size`
        bytes: a library of sideloaded kepubs as the real file has them (a `content` row per
        book with its shop description, one per file of the book (type 9) and per entry of its
        table of contents (type 899)), a third of them opened, highlights in the opened ones
        (every eighth with a note), dog-ears; added book by book until the file is `size`."""
        rng = random.Random(SEED)
        words = ("the reader closes book and thinks about chapter light river memory winter garden letter city "
                 "silence morning promise stranger journey harbour candle mirror").split()
        user = "9096560f-fc26-4cb2-9527-dba6803a8055"
        path.unlink(missing_ok=True)
        db = sqlite3.connect(path)
        db.executescript(Bench.KOBO_SCHEMA)
        book = 0
        while True:
            for _ in range(5):
                author = f"Author{book % 40}, Bench"
                title = f"Bench Kobo Book {book}"
                volume = f"file:///mnt/onboard/{author}/{title} - {author}.kepub.epub"
                opened = book % 3 == 0
                description = "<p>" + " ".join(rng.choice(words) for _ in range(rng.randrange(150, 300))) + "</p>"
                db.execute("INSERT INTO content (ContentID, ContentType, MimeType, Title, Attribution, Description, DateCreated, "
                           "DateLastRead, ReadStatus, ___UserID, ___PercentRead, ISBN, LastTimeStartedReading, VolumeIndex) "
                           "VALUES (?, '6', 'application/x-kobo-epub+zip', ?, ?, ?, '2024-01-01T00:00:00Z', ?, ?, ?, ?, ?, ?, -1)",
                           (volume, title, author, description, "2025-03-01T20:00:00Z" if opened else None, 1 if opened else 0,
                            user, rng.randrange(1, 100) if opened else 0, f"97800000{book:05}", "2025-02-01T20:00:00Z" if opened else None))
                chapters = rng.randrange(20, 40)
                for chapter in range(chapters):
                    file = f"{volume[len('file://'):]}!!chapter_{chapter:03}.html"
                    db.execute("INSERT INTO content (ContentID, ContentType, MimeType, BookID, BookTitle, Title, VolumeIndex, ___UserID) "
                               "VALUES (?, '9', 'application/xhtml+xml', ?, ?, ?, ?, ?)",
                               (file, volume, title, f"chapter_{chapter:03}.html", chapter, user))
                    db.execute("INSERT INTO content (ContentID, ContentType, MimeType, BookID, BookTitle, Title, ChapterIDBookmarked, "
                               "VolumeIndex, Depth, ___UserID) VALUES (?, '899', 'application/x-kobo-epub+zip', ?, ?, ?, ?, ?, 1, ?)",
                               (file + "-1", volume, title, f"Chapter {chapter + 1}", file, chapter, user))
                    if not opened:
                        continue
                    for mark in range(rng.randrange(0, 4)):
                        kind = "dogear" if rng.random() < 0.03 else "highlight"
                        text = " ".join(rng.choice(words) for _ in range(rng.randrange(12, 50))).capitalize() + "." if kind == "highlight" else None
                        note = f"My thought on it: {rng.choice(words)}." if kind == "highlight" and rng.random() < 0.125 else None
                        db.execute("INSERT INTO Bookmark (BookmarkID, VolumeID, ContentID, StartContainerPath, StartContainerChildIndex, "
                                   "StartOffset, EndContainerPath, EndContainerChildIndex, EndOffset, Text, Annotation, DateCreated, "
                                   "ChapterProgress, Hidden, UserID, Type) VALUES (?, ?, ?, 'span#kobo\\.1\\.1', -99, 0, "
                                   "'span#kobo\\.1\\.1', -99, 40, ?, ?, ?, ?, 'false', ?, ?)",
                                   (f"{rng.getrandbits(128):032x}", volume, file, text, note,
                                    f"2025-02-{rng.randrange(1, 29):02}T{rng.randrange(24):02}:{rng.randrange(60):02}:00.000",
                                    (mark + rng.random()) / 4, user, kind))
                book += 1
            db.commit()
            if path.stat().st_size >= size:
                break
        db.close()

    def device_folder(self, root):
        """A Kobo's drive running KOReader, with a Kindle's clippings beside: the 10,000
        clippings of the Kindle row, a Kobo database of about 3 MB, the statistics of the
        KOReader row."""
        shutil.rmtree(root, ignore_errors=True)
        for folder in ["documents", ".kobo", ".adds/koreader/settings"]:
            (root / folder).mkdir(parents=True)
        self.kindle_clippings(root / "documents" / "My Clippings.txt")
        self.kobo_database(root / ".kobo" / "KoboReader.sqlite")
        self.koreader_statistics(root / ".adds" / "koreader" / "settings" / "statistics.sqlite3")

    def measure_device_import(self):
        """Issue 43: `import DEVICE` of a device's folder (10,000 clippings, a 3 MB Kobo database
        and a year of KOReader statistics) into a fresh vault (≤ 2 s), and again into the vault
        that has it all (≤ half)."""
        device = SCRATCH / "KOBOeReader"
        self.device_folder(device)
        kobo = (device / ".kobo" / "KoboReader.sqlite").stat().st_size
        size = f"{KINDLE_CLIPPINGS // 1000}k clippings, {fmt_bytes(kobo)} Kobo, {STATISTICS_TURNS // 1000}k page turns"
        fresh = SCRATCH / "device-fresh"
        self.timed_row("`import DEVICE` (Kindle, Kobo, KOReader) into a fresh vault", size, self.bmvault(fresh, "import", device),
                       self.slow_runs, prepare=self.fresh_vault_command(fresh), target_seconds=2.0, target_rss=64 * MiB,
                       target="≤ 2 s, ≤ 64 MiB")
        again = SCRATCH / "device-again"
        subprocess.run(self.fresh_vault_command(again), shell=True, check=True, env=self.env)
        self.check_runs(self.bmvault(again, "import", device))
        self.timed_row("`import DEVICE` (Kindle, Kobo, KOReader) again (adds nothing)", size, self.bmvault(again, "import", device),
                       self.slow_runs, target_seconds=1.0, target_rss=64 * MiB, target="≤ 1 s, ≤ 64 MiB")

    @staticmethod
    def large_pdf(path, size=BOOK_FILE_BYTES):
        """A valid PDF of `size` bytes: an Info dictionary, one page, and an image stream of
        incompressible bytes that makes up the size (as a scanned book's images do)."""
        if path.exists() and path.stat().st_size >= size:
            return
        header = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
        objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
                   b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                   b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> >>",
                   b"<< /Title (A Benchmark Book) /Author (Bench Writer) >>"]
        rng = random.Random(SEED)
        with open(path, "wb") as out:
            out.write(header)
            offsets = []
            for number, body in enumerate(objects, start=1):
                offsets.append(out.tell())
                out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
            image = size - out.tell() - 400
            offsets.append(out.tell())
            out.write(b"5 0 obj\n<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray "
                      b"/BitsPerComponent 8 /Length %d >>\nstream\n" % image)
            left = image
            while left > 0:
                chunk = min(left, 8 * MiB)
                out.write(rng.randbytes(chunk))
                left -= chunk
            out.write(b"\nendstream\nendobj\n")
            xref = out.tell()
            out.write(b"xref\n0 6\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets))
            out.write(b"trailer\n<< /Size 6 /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref)

    def measure_file_add(self):
        """Issue 19: `file add` of a 200 MB PDF into a fresh vault (read, hashed, encrypted,
        fsynced) against `cp` of the same file; goal ≤ 3 × cp's time and ≤ 64 MiB."""
        pdf = SCRATCH / "large-book.pdf"
        self.large_pdf(pdf)
        copy = SCRATCH / "large-book-copy.pdf"
        size = f"{BOOK_FILE_BYTES // 1_000_000} MB PDF"
        cp_row = self.timed_row("`cp` of the same file (the yardstick)", size, ["cp", str(pdf), str(copy)], self.slow_runs,
                                prepare=f"rm -f {shlex.quote(str(copy))}")
        goal = 3 * cp_row["median"] if cp_row.get("median") else None
        # cp leaves the copy in the page cache (or shares its blocks); `file add` flushes its
        # copy to disk before it records it, so `cp` + fsync is shown too, for context.
        self.timed_row("`cp` + `sync -f` of the same file (durable, as `file add` is)", size,
                       ["sh", "-c", f"cp {shlex.quote(str(pdf))} {shlex.quote(str(copy))} && sync -f {shlex.quote(str(copy))}"],
                       self.slow_runs, prepare=f"rm -f {shlex.quote(str(copy))}")
        vault = SCRATCH / "file-add"
        self.timed_row("`file add` (encrypted into the file store)", size, self.bmvault(vault, "file", "add", pdf),
                       self.slow_runs, prepare=self.fresh_vault_command(vault), target_seconds=goal, target_rss=64 * MiB,
                       target="≤ 3 × cp, ≤ 64 MiB")
        # The vault the last run left holds the file: its plain copy back out, into an archive.
        archive = SCRATCH / "file-archive"
        self.timed_row("`export --with-files` of that vault (decrypted, checked, written)", size,
                       self.bmvault(vault, "export", "--out", archive, "--with-files"), self.slow_runs,
                       prepare=f"rm -rf {shlex.quote(str(archive))}", target_rss=64 * MiB, target="≤ 64 MiB")
        shutil.rmtree(archive, ignore_errors=True)
        self.measure_file_sync(vault, size)
        copy.unlink(missing_ok=True)

    def measure_file_sync(self, vault, size):
        """Issue 19: that vault's file through a folder remote that carries files: pushed by
        its device (the blob copied and flushed, with the journal's snapshot), then pulled by
        a device that joined (streamed in, opened and hashed before it is kept). Memory is
        the goal (≤ 64 MiB, as `file add`); the time is reported beside `cp`'s."""
        q = lambda path: shlex.quote(str(path))
        a, b, remote = SCRATCH / "file-sync-a", SCRATCH / "file-sync-b", SCRATCH / "file-sync-remote"
        pushed, b_template = SCRATCH / "file-sync-pushed", SCRATCH / "file-sync-b-new"
        add_remote = shlex.join(self.bmvault(a, "remote", "add", "shared", remote, "--files"))
        prepare_push = f"rm -rf {q(a)} {q(remote)} && cp -r {q(vault)} {q(a)} && mkdir {q(remote)} && {add_remote} > /dev/null 2>&1"
        self.timed_row("`sync` push of that file to a folder remote that carries files", size, self.bmvault(a, "sync"),
                       self.slow_runs, prepare=prepare_push, target_rss=64 * MiB, target="≤ 64 MiB")
        try:
            subprocess.run(prepare_push, shell=True, check=True, env=self.env)
            self.check_runs(self.bmvault(a, "sync"))
            shutil.rmtree(pushed, ignore_errors=True)
            shutil.copytree(remote, pushed)
            shutil.rmtree(b_template, ignore_errors=True)
            self.check_runs(self.bmvault(b_template, "init", "--join", remote, "--passphrase-stdin"),
                            stdin_path=self.passphrase_file())
            self.unlock(b_template)
            self.check_runs(self.bmvault(b_template, "remote", "files", "origin", "on"))
        except (subprocess.CalledProcessError, RuntimeError, OSError) as error:
            self.add_row("`sync` pull of that file on a second device", size, target="≤ 64 MiB", met=False, value="FAILED",
                         note=str(error)[:300])
            return
        prepare_pull = f"rm -rf {q(b)} {q(remote)} && cp -r {q(pushed)} {q(remote)} && cp -r {q(b_template)} {q(b)}"
        row = self.timed_row("`sync` pull of that file on a second device (checked before it is kept)", size,
                             self.bmvault(b, "sync"), self.slow_runs, prepare=prepare_pull, target_rss=64 * MiB,
                             target="≤ 64 MiB")
        subprocess.run(prepare_pull, shell=True, check=True, env=self.env)
        pulled = json.loads(self.check_runs(self.bmvault(b, "sync", "--json")))
        row["note"] = f"received {pulled.get('filesReceived')}, refused {pulled.get('filesRefused')}"
        if pulled.get("filesReceived") != 1:
            row["met"] = False
        for path in (a, b, remote, pushed, b_template):
            shutil.rmtree(path, ignore_errors=True)

    # MARK: sync

    def sync_vault(self):
        """A journal kept on one device, never synced: 7,042 annotations, 2,816 sessions and
        140 books. Its first remote receives them as a snapshot: 9,998 operations."""
        key = f"sync-{self.generator_hash()}"
        directory = CACHE / key
        for stale in CACHE.glob("sync-*"):
            if stale.name != key and stale.is_dir():
                shutil.rmtree(stale)
        if not (directory / "complete").exists():
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir(parents=True)
            result = subprocess.run([str(self.generator), "--vault", str(directory / "vault"), "--annotations",
                                     str(SYNC_ANNOTATIONS), "--seed", str(SEED), "--passphrase-stdin"],
                                    input=PASSPHRASE + "\n", text=True, capture_output=True, env=self.env)
            if result.returncode != 0:
                raise SystemExit(f"the generator failed: {result.stderr}")
            log(result.stderr.strip())
            (directory / "complete").write_text(result.stderr)
        return directory / "vault"

    def measure_sync(self):
        """Device A pushes its journal (a snapshot) to a fresh folder remote; device B, made
        with `init --join` from that remote, pulls and applies them. Both are `bmvault sync`,
        each run on fresh copies of the vault and the remote folder."""
        # As for the archive: the remote (10,000 new files) lives outside .build, and the
        # previous run's remote is moved aside, not deleted, until the rows are done.
        # Deleted right before, its 10,000 inodes made the next push spend 4.7-5.0 s of
        # kernel time creating files instead of 0.6-0.9 s (measured by hand on this machine).
        remote_root = Path(tempfile.mkdtemp(prefix="bmvault-bench-remote-"))
        try:
            self.measure_sync_rows(remote_root / "sync-remote", remote_root / "aside")
        finally:
            shutil.rmtree(remote_root, ignore_errors=True)

    def measure_sync_rows(self, remote, aside):
        source = self.sync_vault()
        with closing(sqlite3.connect(f"file:{source / 'vault.db'}?mode=ro", uri=True)) as connection:
            (queued,) = connection.execute("SELECT (SELECT count(*) FROM book) + (SELECT count(*) FROM reading_session)"
                                           " + (SELECT count(*) FROM annotation WHERE derived = 0)").fetchone()
        a, b = SCRATCH / "sync-device-a", SCRATCH / "sync-device-b"
        pushed, b_template = SCRATCH / "sync-remote-pushed", SCRATCH / "sync-device-b-new"
        q = lambda path: shlex.quote(str(path))
        add_remote = shlex.join(self.bmvault(a, "remote", "add", "origin", remote))
        move_aside = (f"mkdir -p {q(aside)} && if [ -d {q(remote)} ]; then mv {q(remote)} {q(aside)}/$(date +%s%N); fi")
        prepare_push = (f"rm -rf {q(a)} && {move_aside} && cp -r {q(source)} {q(a)} && mkdir {q(remote)} && "
                        f"{add_remote} > /dev/null 2>&1")
        label = f"{queued:,} ops"
        try:
            # The key is kept per vault id: unlocking one copy unlocks every copy, and device B.
            subprocess.run(f"rm -rf {q(a)} && cp -r {q(source)} {q(a)}", shell=True, check=True)
            self.unlock(a)
            subprocess.run(prepare_push, shell=True, check=True, env=self.env)
        except (subprocess.CalledProcessError, RuntimeError) as error:
            self.add_row("`sync` push / pull + apply", label, target="≤ 3 s each", met=False, value="FAILED",
                         note=str(error)[:300])
            return
        self.timed_row(f"`sync` push of {queued:,} records (a snapshot) to a new folder remote (device A)", label,
                       self.bmvault(a, "sync"), self.slow_runs, prepare=prepare_push,
                       target_seconds=3.0, target="≤ 3 s")
        try:
            subprocess.run(prepare_push, shell=True, check=True, env=self.env)
            summary = json.loads(self.check_runs(self.bmvault(a, "sync", "--json")))
            shutil.rmtree(pushed, ignore_errors=True)
            shutil.copytree(remote, pushed)
            shutil.rmtree(b_template, ignore_errors=True)
            self.check_runs(self.bmvault(b_template, "init", "--join", remote, "--passphrase-stdin"),
                            stdin_path=self.passphrase_file())
        except (RuntimeError, ValueError, OSError) as error:
            self.add_row("`sync` pull + apply on a second device", label, target="≤ 3 s", met=False, value="FAILED",
                         note=str(error)[:300])
            return
        prepare_pull = (f"rm -rf {q(b)} && {move_aside} && cp -r {q(pushed)} {q(remote)} && cp -r {q(b_template)} {q(b)}")
        row = self.timed_row(f"`sync` pull + apply of {summary.get('pushed', '?'):,} operations on a second device "
                             "(`init --join`)", label, self.bmvault(b, "sync"), self.slow_runs, prepare=prepare_pull,
                             target_seconds=3.0, target="≤ 3 s")
        # Did B end up with A's journal?
        subprocess.run(prepare_pull, shell=True, check=True, env=self.env)
        pulled = json.loads(self.check_runs(self.bmvault(b, "sync", "--json")))
        counts_a = json.loads(self.check_runs(self.bmvault(a, "status", "--json"))).get("counts")
        counts_b = json.loads(self.check_runs(self.bmvault(b, "status", "--json"))).get("counts")
        check = "B's counts equal A's" if counts_a == counts_b else f"B's counts {counts_b} differ from A's {counts_a}"
        row["note"] = (f"pulled {pulled.get('pulled')}, conflicts {pulled.get('conflicts')}, "
                       f"waiting {pulled.get('deferred')}, failures {pulled.get('failures')}; {check}")
        if counts_a != counts_b:
            row["met"] = False

    # MARK: WebDAV

    WEBDAV_USER, WEBDAV_PASSWORD = "bench", "bench password (not secret)"

    def measure_webdav_sync(self, server_storage, with_goal):
        """The same push and pull as `measure_sync`, through lighttpd with mod_webdav on
        loopback (basic auth, plain HTTP: loopback only) instead of a folder. Issue 18's goal:
        at most twice the folder remote's time for the same work.

        The goal rows (`with_goal`) keep the server's files in `server_storage` (tmpfs) when
        there is one. On loopback the server's file-system work runs on this machine, and
        lighttpd creates each file with O_TMPFILE, which costs about 0.75 ms on this VM's ext4
        (5 µs on tmpfs; Docs/PERFORMANCE.md, section 22): with its files on this disk the rows
        measure the server's disk, not the client. Without a goal (the push row only), the
        server's files are on the same disk as the folder remote's, for comparison."""
        if not Path("/usr/sbin/lighttpd").exists():
            self.add_row("`sync` push / pull through WebDAV (lighttpd)", "10k ops", target="≤ 2 × folder", value="lighttpd not installed")
            return
        work = Path(tempfile.mkdtemp(prefix="bmvault-bench-webdav-", dir=server_storage))
        server = None
        try:
            root, uploads = work / "root", work / "uploads"
            uploads.mkdir()
            (root / "bmvault").mkdir(parents=True)
            (work / "users").write_text(f"{self.WEBDAV_USER}:{self.WEBDAV_PASSWORD}\n")
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            (work / "lighttpd.conf").write_text(f"""
                server.modules = ("mod_webdav", "mod_auth", "mod_authn_file")
                server.document-root = "{root}"
                server.bind = "127.0.0.1"
                server.port = {port}
                server.upload-dirs = ("{uploads}")
                server.errorlog = "{work / 'error.log'}"
                webdav.activate = "enable"
                webdav.is-readonly = "disable"
                auth.backend = "plain"
                auth.backend.plain.userfile = "{work / 'users'}"
                auth.require = ("" => ("method" => "basic", "realm" => "bench", "require" => "valid-user"))
                """)
            server = subprocess.Popen(["/usr/sbin/lighttpd", "-D", "-f", str(work / "lighttpd.conf")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(250):
                with socket.socket() as attempt:
                    if attempt.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.02)
            self.measure_webdav_rows(f"http://127.0.0.1:{port}/bmvault", root / "bmvault", work, with_goal=with_goal)
        finally:
            if server:
                server.kill()
                server.wait()
            shutil.rmtree(work, ignore_errors=True)

    def measure_webdav_rows(self, url, served, work, with_goal):
        source = self.sync_vault()
        a, b = SCRATCH / "webdav-device-a", SCRATCH / "webdav-device-b"
        pushed, b_template = work / "pushed", SCRATCH / "webdav-device-b-new"
        password = work / "password"
        password.write_text(self.WEBDAV_PASSWORD + "\n")
        join_input = work / "join-input"
        join_input.write_text(PASSPHRASE + "\n" + self.WEBDAV_PASSWORD + "\n")
        q = lambda path: shlex.quote(str(path))
        add_remote = shlex.join(self.bmvault(a, "remote", "add", "origin", url, "--user", self.WEBDAV_USER, "--password-stdin"))
        empty_server = f"rm -rf {q(served)} && mkdir {q(served)}"
        prepare_push = f"rm -rf {q(a)} && {empty_server} && cp -r {q(source)} {q(a)} && {add_remote} < {q(password)} > /dev/null 2>&1"
        try:
            subprocess.run(f"rm -rf {q(a)} && cp -r {q(source)} {q(a)}", shell=True, check=True)
            self.unlock(a)
            subprocess.run(prepare_push, shell=True, check=True, env=self.env)
        except (subprocess.CalledProcessError, RuntimeError) as error:
            self.add_row("`sync` push / pull through WebDAV", "10k ops", target="≤ 2 × folder", met=False, value="FAILED",
                         note=str(error)[:300])
            return
        folder_push = next((r for r in self.rows if r["operation"].startswith("`sync` push of")), None)
        folder_pull = next((r for r in self.rows if r["operation"].startswith("`sync` pull + apply of")), None)

        def goal(folder_row):
            seconds = folder_row.get("median") if folder_row else None
            return (2 * seconds, f"≤ 2 × folder ({2 * seconds:.2f} s)") if seconds else (None, "≤ 2 × folder")

        if not with_goal:
            self.timed_row("`sync` push of the same records to a new WebDAV remote (lighttpd on loopback, its files on this "
                           "machine's disk)", "10k ops", self.bmvault(a, "sync"), self.slow_runs, prepare=prepare_push,
                           target="reported (the server's disk)")
            return
        push_seconds, push_target = goal(folder_push)
        self.timed_row("`sync` push of the same records to a new WebDAV remote (lighttpd on loopback, its files in memory)",
                       "10k ops", self.bmvault(a, "sync"), self.slow_runs, prepare=prepare_push, target_seconds=push_seconds,
                       target=push_target)
        try:
            subprocess.run(prepare_push, shell=True, check=True, env=self.env)
            self.check_runs(self.bmvault(a, "sync"))
            shutil.rmtree(pushed, ignore_errors=True)
            shutil.copytree(served, pushed)
            shutil.rmtree(b_template, ignore_errors=True)
            self.check_runs(self.bmvault(b_template, "init", "--join", url, "--user", self.WEBDAV_USER, "--passphrase-stdin",
                                         "--password-stdin"), stdin_path=join_input)
        except (RuntimeError, OSError) as error:
            self.add_row("`sync` pull + apply through WebDAV", "10k ops", target="≤ 2 × folder", met=False, value="FAILED",
                         note=str(error)[:300])
            return
        prepare_pull = f"rm -rf {q(b)} {q(served)} && cp -r {q(pushed)} {q(served)} && cp -r {q(b_template)} {q(b)}"
        pull_seconds, pull_target = goal(folder_pull)
        self.timed_row("`sync` pull + apply of the same operations from WebDAV (files in memory) on a second device (`init --join URL`)", "10k ops",
                       self.bmvault(b, "sync"), self.slow_runs, prepare=prepare_pull, target_seconds=pull_seconds, target=pull_target)

    # MARK: migration

    # The vault_meta keys a v1 build writes (Store.create); later migrations add their own
    # (0003: device_id, hlc), which must not be in a v1 vault or re-adding them would fail.
    V1_META_KEYS = ("vault_id", "key_id", "created_at")

    def v1_vault(self, label):
        """A copy of the generated vault at schema v1: a database built from the frozen
        Schemas/sqlite/v1.sql, filled with the v1 columns of every v1 table of the generated
        vault (migrations after 0001 only add tables, columns and rows), verified against
        v1.sql, and cached beside the generated vault."""
        directory = self.cached_vault(label)
        v1 = directory / "v1"
        if (v1 / "complete").exists():
            return v1 / "vault"
        shutil.rmtree(v1, ignore_errors=True)
        (v1 / "vault").mkdir(parents=True, mode=0o700)
        database = v1 / "vault" / "vault.db"
        frozen = (ROOT / "Schemas" / "sqlite" / "v1.sql").read_text().split("\n", 1)[1]
        statements = [text.strip() for text in frozen.split(";\n\n") if text.strip()]
        connection = sqlite3.connect(database, isolation_level=None)
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("BEGIN")
            # v1.sql lists objects by type then name (indexes first): create the tables first.
            for statement in sorted(statements, key=lambda text: not text.startswith("CREATE TABLE")):
                if not statement.startswith("CREATE TABLE sqlite_sequence"):  # SQLite makes it itself
                    connection.execute(statement)
            connection.execute("ATTACH DATABASE ? AS source", (str(directory / "vault" / "vault.db"),))
            tables = [name for (name,) in connection.execute(
                "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
            for table in tables:
                columns = ", ".join(f'"{row[1]}"' for row in connection.execute(f'PRAGMA main.table_info("{table}")'))
                where = {"schema_migration": "WHERE id = '0001_initial'",
                         "vault_meta": "WHERE key IN " + repr(self.V1_META_KEYS)}.get(table, "")
                connection.execute(f'INSERT INTO main."{table}" ({columns}) SELECT {columns} FROM source."{table}" {where}')
            connection.execute("DELETE FROM main.sqlite_sequence")
            connection.execute("INSERT INTO main.sqlite_sequence (name, seq) SELECT name, seq FROM source.sqlite_sequence "
                               "WHERE name IN (SELECT name FROM main.sqlite_master WHERE type = 'table')")
            connection.execute("PRAGMA user_version = 1")
            connection.execute("COMMIT")
            connection.execute("DETACH DATABASE source")
            actual = "".join(sql + ";\n\n" for (sql,) in connection.execute(
                "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name"))
            (version,) = connection.execute("PRAGMA user_version").fetchone()
            history = [row[0] for row in connection.execute("SELECT id FROM schema_migration ORDER BY id")]
            (integrity,) = connection.execute("PRAGMA integrity_check").fetchone()
            orphans = connection.execute("PRAGMA foreign_key_check").fetchall()
            (annotations,) = connection.execute("SELECT count(*) FROM annotation").fetchone()
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()
        if (actual.rstrip() != frozen.rstrip() or version != 1 or history != ["0001_initial"] or integrity != "ok"
                or orphans or annotations != SIZES[label]):
            raise SystemExit("the v1 copy does not match Schemas/sqlite/v1.sql (or lost rows); "
                             "Scripts/bench-run.py needs a new way to make a v1 vault")
        database.chmod(0o600)
        (v1 / "complete").write_text("schema v1 from Schemas/sqlite/v1.sql, verified, with the generated rows\n")
        return v1 / "vault"

    def measure_migration(self, label):
        if not self.wants("migrate"):
            return
        source = self.v1_vault(label)
        target = SCRATCH / f"migrate-{label}"
        prepare = f"rm -rf {shlex.quote(str(target))} && cp -r {shlex.quote(str(source))} {shlex.quote(str(target))}"
        argv = self.bmvault(target, "status")
        self.timed_row("open + migrate v1 → newest (first `status`)", label, argv, self.slow_runs, prepare=prepare,
                       target_seconds=3.0, target="≤ 3 s")
        # Extra disk: sample the directory while the upgrade runs.
        database_bytes = sum(f.stat().st_size for f in source.iterdir() if f.name.startswith("vault.db"))
        peaks = []
        for _ in range(3):
            subprocess.run(prepare, shell=True, check=True)
            peaks.append(self.sample_directory_growth(argv, target))
            with closing(sqlite3.connect(f"file:{target / 'vault.db'}?mode=ro", uri=True)) as connection:
                (version,) = connection.execute("PRAGMA user_version").fetchone()
            if version < 2:
                raise SystemExit(f"the vault is still at schema {version} after `status`")
        extra = max(peak for peak, _ in peaks) - database_bytes
        samples = min(count for _, count in peaks)
        ratio = extra / database_bytes
        self.add_row("migrate: extra disk during the upgrade", label, target="≤ 1.1 × database", met=ratio <= 1.1,
                     value=f"{ratio:.2f} × database ({fmt_bytes(extra)} over {fmt_bytes(database_bytes)})",
                     note=f"peak of the vault directory's apparent size, sampled ≥ {samples} times per run, 3 runs")

    def sample_directory_growth(self, argv, directory):
        """Runs argv while a thread polls the total apparent size of `directory`'s files."""
        peak = 0
        samples = 0
        done = threading.Event()

        def poll():
            nonlocal peak, samples
            while not done.is_set():
                total = 0
                try:
                    with os.scandir(directory) as entries:
                        for entry in entries:
                            try:
                                total += entry.stat(follow_symlinks=False).st_size
                            except FileNotFoundError:
                                pass
                except FileNotFoundError:
                    pass
                peak = max(peak, total)
                samples += 1
                time.sleep(0.0005)

        thread = threading.Thread(target=poll)
        thread.start()
        try:
            subprocess.run([str(a) for a in argv], env=self.env, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        finally:
            done.set()
            thread.join()
        return peak, samples

    # MARK: - jrnl

    def jrnl_venv(self):
        venv = CACHE / "jrnl-venv"
        jrnl = venv / "bin" / "jrnl"
        if not jrnl.exists():
            log(f"installing jrnl {JRNL_VERSION} from PyPI into {venv.relative_to(ROOT)} ...")
            shutil.rmtree(venv, ignore_errors=True)
            run([sys.executable, "-m", "venv", str(venv)])
            run([str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check",
                 f"jrnl=={JRNL_VERSION}"])
        return jrnl

    def jrnl_journal(self, label):
        directory = self.cached_vault(label)
        journal = directory / "jrnl.txt"
        if not (directory / "jrnl-complete").exists():
            result = subprocess.run([str(self.generator), "--jrnl", str(journal), "--annotations", str(SIZES[label]),
                                     "--seed", str(SEED)], capture_output=True, text=True, env=self.env)
            if result.returncode != 0:
                raise SystemExit(f"the generator failed: {result.stderr}")
            log(result.stderr.strip())
            (directory / "jrnl-complete").write_text("ok\n")
        return journal

    def jrnl_config(self, journal, name):
        config = SCRATCH / f"{name}.yaml"
        config.write_text(f"""colors:
  body: none
  date: none
  tags: none
  title: none
default_hour: 9
default_minute: 0
editor: ''
encrypt: false
highlight: false
indent_character: '|'
journals:
  default:
    journal: {json.dumps(str(journal))}
linewrap: 79
tagsymbols: '#@'
template: false
timeformat: '%Y-%m-%d %H:%M'
version: '{JRNL_VERSION}'
""")
        return config

    def compare(self, label):
        # The exports go outside .build, each run's moved aside until the rows are done
        # (see measure_archive: freshly deleted files make creating new ones slow).
        export_root = Path(tempfile.mkdtemp(prefix="bmvault-bench-compare-"))
        try:
            self.compare_rows_at(label, export_root)
        finally:
            shutil.rmtree(export_root, ignore_errors=True)

    def compare_rows_at(self, label, export_root):
        jrnl = self.jrnl_venv()
        journal = SCRATCH / f"jrnl-{label}.txt"
        shutil.copyfile(self.jrnl_journal(label), journal)
        config = self.jrnl_config(journal, f"jrnl-{label}")
        vault = self.scratch_copy(self.cached_vault(label) / "vault", f"compare-{label}")
        self.unlock(vault)
        log(f"comparing with jrnl {JRNL_VERSION} at {label}")
        base = [str(jrnl), "--config-file", str(config)]
        jrnl_runs = 5 if label != "1M" else 3
        pairs = [
            ("add (one process per entry)", self.bmvault(vault, "note", "add", self.book_name(label), NOTE_TEXT),
             base + [NOTE_TEXT], self.runs, 10, ""),
            ("export JSON", None, base + ["--format", "json"], 0, jrnl_runs, "export"),
            ("export Markdown", None, base + ["--format", "markdown"], 0, jrnl_runs, "export"),
            ("search (substring, ~0.5% match)", self.bmvault(vault, "search", QUERY),
             base + ["-contains", QUERY], self.slow_runs, jrnl_runs, ""),
            ("stand-in: every annotation as JSON (`list --json` vs JSON export)", self.bmvault(vault, "list", "--json"),
             base + ["--format", "json"], self.slow_runs, jrnl_runs, ""),
        ]
        for name, ours, theirs, our_runs, their_runs, needs in pairs:
            entry = {"operation": name, "size": label}
            try:
                self.check_runs(theirs)
                their_times = self.hyperfine(theirs, their_runs, warmup=1)
                entry["jrnl"] = median(their_times)
                entry["jrnl_rss"] = self.peak_rss(theirs, runs=2)
            except RuntimeError as error:
                entry["jrnl"] = None
                entry["note"] = f"jrnl failed: {str(error)[:200]}"
            if needs == "export" and self.has_command("export"):
                out, aside = export_root / f"export-{label}", export_root / "aside"
                fmt = "json" if "JSON" in name else "markdown"
                ours = self.bmvault(vault, "export", "--out", out)
                entry["note"] = f"bmvault `export --out DIR` writes every format at once (asked for {fmt})"
                move_aside = (f"mkdir -p {shlex.quote(str(aside))} && if [ -d {shlex.quote(str(out))} ]; then "
                              f"mv {shlex.quote(str(out))} {shlex.quote(str(aside))}/$(date +%s%N); fi")
                times = self.hyperfine(ours, our_runs or self.slow_runs, prepare=move_aside, warmup=0)
                entry["bmvault"] = median(times)
            elif ours is None:
                entry["bmvault"] = None
                entry["note"] = "bmvault: not built yet"
            else:
                try:
                    self.check_runs(ours)
                    entry["bmvault"] = median(self.hyperfine(ours, our_runs))
                except RuntimeError as error:
                    entry["bmvault"] = None
                    entry["note"] = f"bmvault failed: {str(error)[:200]}"
            if entry.get("bmvault") and entry.get("jrnl"):
                entry["ratio"] = entry["bmvault"] / entry["jrnl"]
            self.compare_rows.append(entry)
            log(f"  {name} [{label}]: bmvault {fmt_time(entry.get('bmvault'))}, jrnl {fmt_time(entry.get('jrnl'))}")

    def compare_capture(self, label):
        """`note add` and `show` of one note against jrnl's add, in one run, on an empty journal
        and at 100k: what a reader feels on every capture, key lookup included (libsecret)."""
        jrnl = self.jrnl_venv()
        journal = SCRATCH / f"jrnl-capture-{label}.txt"
        if label == "empty":
            journal.write_text("")
            vault = SCRATCH / "capture-empty"
            shutil.rmtree(vault, ignore_errors=True)
            self.check_runs(self.bmvault(vault, "init", "--passphrase-stdin", "--kdf", "interactive"),
                            stdin_path=self.passphrase_file())
            self.unlock(vault)
            book = "Book 00000"
            self.check_runs(self.bmvault(vault, "book", "add", book))
            note = self.check_runs(self.bmvault(vault, "note", "add", book, NOTE_TEXT)).strip()
        else:
            shutil.copyfile(self.jrnl_journal(label), journal)
            vault = self.scratch_copy(self.cached_vault(label) / "vault", f"capture-{label}")
            self.unlock(vault)
            book = self.book_name(label)
            note = self.sample_annotation(vault)
        config = self.jrnl_config(journal, f"jrnl-capture-{label}")
        jrnl_add = [str(jrnl), "--config-file", str(config), NOTE_TEXT]
        log(f"capture against jrnl {JRNL_VERSION}'s add, {label} journal")
        their_times = self.hyperfine(jrnl_add, 10, warmup=1)
        goal = CAPTURE_GOALS[label]
        for name, ours in [("`note add`, against jrnl's add", self.bmvault(vault, "note", "add", book, NOTE_TEXT)),
                           ("`show` of one note, against jrnl's add",
                            self.bmvault(vault, "show", self.unique_prefix(vault, note)))]:
            self.check_runs(ours)
            entry = {"operation": name, "size": label, "jrnl": median(their_times),
                     "bmvault": median(self.hyperfine(ours, self.runs))}
            entry["ratio"] = entry["bmvault"] / entry["jrnl"]
            entry["note"] = f"goal ≤ {goal} × jrnl: {'met' if entry['ratio'] <= goal else 'MISSED'}"
            self.compare_rows.append(entry)
            log(f"  {name} [{label}]: bmvault {fmt_time(entry['bmvault'])}, jrnl {fmt_time(entry['jrnl'])}, "
                f"ratio {entry['ratio']:.3f} ({entry['note']})")

    # MARK: - Profiles

    def profile_misses(self):
        """Runs every missed row once more under callgrind (instruction counts: repeatable on a
        busy machine) and keeps the annotated, demangled profile in .build/bench-cache/profiles/."""
        if not shutil.which("valgrind"):
            log("valgrind is missing: run Scripts/install --bench")
            return
        out_dir = CACHE / "profiles"
        out_dir.mkdir(parents=True, exist_ok=True)
        demangle = ["swift", "demangle", "--simplified"] if shutil.which("swift") else None
        boring = re.compile(r"PROGRAM TOTALS|ld-linux|\(below main\)|libc_start|bmvault_main|BMCLIMain\.run|"
                            r"partial apply for closure #1 in static|<compiler-generated>")
        for row in self.rows:
            if row["met"] is not False or not row["argv"]:
                continue
            slug = re.sub(r"[^a-z0-9]+", "-", f"{row['operation']}-{row['size']}".lower()).strip("-")[:70]
            if row["prepare"]:
                subprocess.run(row["prepare"], shell=True, check=True)
            data = out_dir / f"{slug}.callgrind"
            result = subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=no",
                                     f"--callgrind-out-file={data}"] + row["argv"], env=self.env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if result.returncode != 0:
                log(f"profile of {row['operation']} failed: {result.stderr[-500:]}")
                continue
            annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(data)],
                                       capture_output=True, text=True).stdout
            if demangle:
                annotated = subprocess.run(demangle, input=annotated, capture_output=True, text=True).stdout
            (out_dir / f"{slug}.txt").write_text(annotated)
            total = re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", annotated)
            print(f"\n#### Profile: {row['operation']} [{row['size']}] — "
                  f"{total.group(1) if total else '?'} instructions (callgrind, inclusive)\n")
            shown = 0
            seen = set()
            for line in annotated.splitlines():
                if re.match(r"\s*[\d,]+ \(\s*[\d.]+%\)", line) and not boring.search(line):
                    cost, _, where = line.strip().partition("  ")
                    where = re.sub(r"\s*\[[^\]]*\]$", "", where.strip())
                    where = re.sub(r"^.*/Sources/", "Sources/", where)
                    # One line per function: inlined code repeats it under the caller's file.
                    function = re.sub(r"^(?:[^:\s]*\.(?:swift|c|h|S)|\?\?\?):", "", where)
                    function = re.sub(r"^(specialized |protocol witness for )", "", function)
                    if function in seen:
                        continue
                    seen.add(function)
                    print(f"    {cost:>28}  {where[:150]}")
                    shown += 1
                    if shown >= 16:
                        break
            print(f"\n    (full profile: {(out_dir / (slug + '.txt')).relative_to(ROOT)})")

    # MARK: - Report

    def machine(self):
        def first(pattern, path):
            try:
                for line in Path(path).read_text().splitlines():
                    match = re.match(pattern, line)
                    if match:
                        return match.group(1).strip()
            except OSError:
                pass
            return "unknown"

        def command(argv):
            try:
                return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()
            except (OSError, subprocess.CalledProcessError):
                return "unknown"

        memory_kb = first(r"MemTotal:\s+(\d+)", "/proc/meminfo")
        memory = f"{int(memory_kb) / 1024 / 1024:.1f} GiB" if memory_kb.isdigit() else "unknown"
        mount = command(["findmnt", "-no", "SOURCE,FSTYPE", "-T", str(CACHE)])
        usage = shutil.disk_usage(CACHE)
        rotational = "rotational=?"
        source = mount.split()[0] if mount != "unknown" and mount else ""
        try:
            flag = (Path("/sys/class/block") / Path(source).name / "queue" / "rotational").read_text().strip()
            rotational = f"kernel says rotational={flag}"
        except OSError:
            pass
        commit = command(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
        dirty = command(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"])
        return {
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "cpu": first(r"model name\s*:\s*(.*)", "/proc/cpuinfo"),
            "nproc": os.cpu_count(),
            "memory": memory,
            "disk": f"{mount} ({rotational}), {usage.total / 1e9:.0f} GB, {usage.free / 1e9:.0f} GB free",
            "kernel": platform.release(),
            "os": first(r'PRETTY_NAME="?([^"]*)"?', "/etc/os-release"),
            "swift": command(["swift", "--version"]).splitlines()[0] if command(["swift", "--version"]) != "unknown" else "unknown",
            "sqlite": command(["pkg-config", "--modversion", "sqlite3"]),
            "libsodium": command(["pkg-config", "--modversion", "libsodium"]),
            "hyperfine": command(["hyperfine", "--version"]),
            "commit": commit + (" (with uncommitted changes)" if dirty else ""),
        }

    def report(self):
        machine = self.machine()
        lines = [
            f"## bmvault benchmark — {machine['date']}",
            "",
            f"- machine: {machine['cpu']}, {machine['nproc']} CPUs, {machine['memory']} RAM; disk {machine['disk']}",
            f"- system: {machine['os']}, Linux {machine['kernel']}; {machine['swift']}; SQLite {machine['sqlite']}, "
            f"libsodium {machine['libsodium']}; {machine['hyperfine']}",
            f"- bmvault: release build of {machine['commit']}; journal seed {SEED}; "
            f"{self.runs} runs per fast operation, {self.slow_runs} per slow one; peak RSS = max of "
            f"{self.rss_runs} runs under /usr/bin/time",
            f"- load average (1 min) {self.load_start[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end on "
            f"{os.cpu_count()} CPUs: wall times grow with other work on the machine; CPU (user+sys of bmvault "
            f"itself, hyperfine's mean) much less so",
            "",
            "| operation | size | median | p95 | peak RSS | CPU | target | met? |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in self.rows:
            if row["value"] is not None:
                median_text, p95_text = row["value"], "—"
            else:
                median_text, p95_text = fmt_time(row["median"]), fmt_time(row["p95"])
            met = {True: "yes", False: "**no**", None: "—"}[row["met"]]
            operation = row["operation"] + (f" — {row['note']}" if row["note"] else "")
            lines.append(f"| {operation} | {row['size']} | {median_text} | {p95_text} | {fmt_bytes(row['rss'])} "
                         f"| {fmt_time(row['cpu'])} | {row['target']} | {met} |")
        if self.compare_rows:
            lines += ["", f"### Side by side with jrnl {JRNL_VERSION} (plain-text journal, same entries)", "",
                      "| operation | size | bmvault median | jrnl median | bmvault / jrnl |", "|---|---|---|---|---|"]
            for row in self.compare_rows:
                ratio = f"{row['ratio']:.3f}" if row.get("ratio") else "—"
                operation = row["operation"] + (f" — {row['note']}" if row.get("note") else "")
                bmvault = fmt_time(row.get("bmvault")) if row.get("bmvault") else "not built yet" \
                    if "not built" in row.get("note", "") else "—"
                lines.append(f"| {operation} | {row['size']} | {bmvault} | {fmt_time(row.get('jrnl'))} | {ratio} |")
        text = "\n".join(lines) + "\n"
        CACHE.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        (CACHE / "latest.md").write_text(text)
        (CACHE / f"results-{stamp}.json").write_text(json.dumps(
            {"machine": machine, "rows": self.rows, "compare": self.compare_rows}, indent=2, default=str) + "\n")
        print(text)
        log(f"(also in {(CACHE / 'latest.md').relative_to(ROOT)} and results-{stamp}.json there)")


def main():
    parser = argparse.ArgumentParser(prog="Scripts/bench")
    parser.add_argument("--bin-dir", required=True, help=argparse.SUPPRESS)
    parser.add_argument("--compare", action="store_true", help="also measure jrnl on the same entries")
    parser.add_argument("--large", action="store_true", help="add the 1,000,000-annotation journal")
    parser.add_argument("--runs", type=int, default=30, help="runs per fast operation (default 30)")
    parser.add_argument("--rss-runs", type=int, default=5, help="runs under /usr/bin/time per operation (default 5)")
    parser.add_argument("--only", metavar="ROWS",
                        help="measure only these comma-separated rows: " + ", ".join(sorted(ONLY_ROWS)))
    parser.add_argument("--profile", action="store_true",
                        help="profile every missed target with callgrind (kept in .build/bench-cache/profiles/)")
    args = parser.parse_args()
    unknown = set(args.only.split(",")) - ONLY_ROWS if args.only else set()
    if unknown:
        parser.error(f"--only: unknown rows {', '.join(sorted(unknown))} (known: {', '.join(sorted(ONLY_ROWS))})")
    if args.runs < 3:
        parser.error("--runs must be at least 3")
    if args.runs < 30:
        log(f"note: --runs {args.runs} is below the 30 runs issue 7 asks of `note add`")
    for tool in ["hyperfine", "sqlite3", "/usr/bin/time"]:
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing: run Scripts/install --bench")
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        raise SystemExit("no D-Bus session: run this through Scripts/bench (it starts a private Secret Service)")

    bench = Bench(args)
    shutil.rmtree(SCRATCH, ignore_errors=True)
    SCRATCH.mkdir(parents=True)
    try:
        bench.measure_size("10k", full=False)
        bench.measure_size("100k", full=True)
        if args.large:
            bench.measure_size("1M", full=True)
        small = [r for r in bench.rows if r["operation"].startswith("`note add") and r["median"]]
        if len(small) >= 2:
            # Wall time moves with other work on the machine; bmvault's own CPU time much less.
            wall = small[1]["median"] / small[0]["median"]
            cpu = small[1]["cpu"] / small[0]["cpu"] if small[0]["cpu"] else float("nan")
            bench.add_row("`note add`: 100k ÷ 10k", "10k→100k", target="≈ 1 (O(1)): both ≤ 1.25",
                          met=wall <= 1.25 and cpu <= 1.25, value=f"wall {wall:.2f}×, CPU {cpu:.2f}×")
        bench.measure_not_yet_built("100k")
        bench.measure_migration("100k")
        bench.measure_unlock("100k")
        for label in ["10k", "100k"] + (["1M"] if args.large else []):
            bench.measure_size_on_disk(label)
        if args.compare and bench.wants("capture"):
            for label in ["empty", "100k"]:
                bench.compare_capture(label)
        if args.compare and bench.only is None:
            for label in ["10k", "100k"]:
                bench.compare(label)
        bench.report()
        if args.profile:
            bench.profile_misses()
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)


if __name__ == "__main__":
    main()

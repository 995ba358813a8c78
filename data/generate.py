"""Write the course's small session files into data/, the same bytes on every run.

    python data/generate.py           write (or rewrite) every file below
    python data/generate.py --check   exit 1 if a committed file differs from what this writes

Every file tells a part of one story: a developer asks Pi to refactor a payments module
(``checkout.py`` mixes card, PayPal and invoice payments in one long function). Each file
shows one idea of the course, or one kind of damage, and nothing else; data/README.md lists
them. Ids, timestamps and session ids are fixed (ids come from a ``random.Random`` seeded
with the file name), so the files never change unless this script does.

The entries are built the way Pi builds them: 8-hex ids, ``parentId`` = the current leaf,
ISO timestamps with milliseconds, keys in Pi's order (``learn_pi_lab.jsonl.writer``).
"""

from __future__ import annotations

import argparse
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from learn_pi_lab.jsonl.ids import iso_now, new_entry_id
from learn_pi_lab.jsonl.writer import order_like_pi, to_json_line

DATA_DIR = Path(__file__).resolve().parent
CWD = "/home/learner/payments"
PROVIDER, MODEL, API = "anthropic", "claude-sonnet-4-5", "anthropic-messages"
KEEP_LEAF = object()   # "parent = the current leaf", Pi's default for every append


class SessionBuilder:
    """One session file in the making: the lines, the ids used, and the current leaf."""

    def __init__(self, name: str, session_number: int, *, version: int | None = 3,
                 parent_session: str | None = None, start: datetime | None = None) -> None:
        self.name = name
        self.rng = random.Random(name)
        self.moment = start or datetime(2026, 3, session_number, 9, 30, tzinfo=timezone.utc)
        self.lines: list[str] = []
        self.by_id: dict[str, dict[str, Any]] = {}
        self.leaf: str | None = None
        self.tool_calls = 0
        self.final_newline = True
        header: dict[str, Any] = {"type": "session"}
        if version is not None:
            header["version"] = version
        header.update(id=f"0195a0e0-{session_number:04x}-7000-8000-00000000c0de",
                      timestamp=iso_now(lambda: self.moment), cwd=CWD)
        if parent_session is not None:
            header["parentSession"] = parent_session
        self.header = header
        self.lines.append(to_json_line(header))

    # -- time ----------------------------------------------------------------------------
    def tick(self, seconds: float = 6.0) -> tuple[str, int]:
        """The next entry's time (ISO string and epoch ms): a few seconds later each time."""
        self.moment += timedelta(seconds=seconds, milliseconds=self.rng.randrange(1, 999))
        return iso_now(lambda: self.moment), int(self.moment.timestamp() * 1000)

    # -- entries -------------------------------------------------------------------------
    def add(self, kind: str, payload: dict[str, Any], *, parent: Any = KEEP_LEAF,
            stamp: str | None = None) -> str:
        """Append one v3 entry (child of the leaf unless ``parent`` is given); it becomes the leaf."""
        if stamp is None:
            stamp, _ms = self.tick()
        entry_id = new_entry_id(self.by_id, self.rng)
        entry = order_like_pi({"type": kind, "id": entry_id,
                               "parentId": self.leaf if parent is KEEP_LEAF else parent,
                               "timestamp": stamp, **payload})
        self.by_id[entry_id] = entry
        self.lines.append(to_json_line(entry))
        self.leaf = entry_id
        return entry_id

    def start(self, thinking: str = "medium") -> None:
        """A fresh Pi session begins with the model, then the thinking level (section 3.4)."""
        self.add("model_change", {"provider": PROVIDER, "modelId": MODEL})
        self.add("thinking_level_change", {"thinkingLevel": thinking})

    def user(self, text: str, *, parent: Any = KEEP_LEAF) -> str:
        stamp, ms = self.tick(20)
        return self.add("message", {"message": user_message(text, ms)}, parent=parent, stamp=stamp)

    def assistant(self, text: str, *, thinking: str | None = None) -> str:
        stamp, ms = self.tick(9)
        blocks = ([{"type": "thinking", "thinking": thinking,
                    "thinkingSignature": f"sig-{self.rng.getrandbits(48):012x}"}]
                  if thinking else [])
        blocks.append({"type": "text", "text": text})
        return self.add("message", {"message": assistant_message(blocks, "stop", ms, len(text))},
                        stamp=stamp)

    def tool_round(self, tool: str, arguments: dict[str, Any], result: str,
                   details: dict[str, Any] | None = None) -> tuple[str, str]:
        """An assistant tool call and its result: two entries, the result a child of the call."""
        self.tool_calls += 1
        call_id = f"toolu_{self.name.split('.')[0].replace('-', '')[:10]}{self.tool_calls:02d}"
        stamp, ms = self.tick(7)
        call = self.add("message", {"message": assistant_message(
            [{"type": "toolCall", "id": call_id, "name": tool, "arguments": arguments}],
            "toolUse", ms, 60)}, stamp=stamp)
        stamp, ms = self.tick(1)
        message: dict[str, Any] = {"role": "toolResult", "toolCallId": call_id, "toolName": tool,
                                   "content": [{"type": "text", "text": result}]}
        if details is not None:
            message["details"] = details
        message.update(isError=False, timestamp=ms)
        return call, self.add("message", {"message": message}, stamp=stamp)

    def bash(self, command: str, output: str, exit_code: int) -> str:
        """The user's own ``!command``: stored as a ``bashExecution`` message."""
        stamp, ms = self.tick(15)
        return self.add("message", {"message": {
            "role": "bashExecution", "command": command, "output": output, "exitCode": exit_code,
            "cancelled": False, "truncated": False, "timestamp": ms}}, stamp=stamp)

    def copy(self, entry: dict[str, Any]) -> None:
        """A line copied from another file with the same id (what /fork does)."""
        self.by_id[entry["id"]] = entry
        self.lines.append(to_json_line(entry))
        self.leaf = entry["id"]

    def add_v1(self, kind: str, payload: dict[str, Any], stamp: str | None = None) -> None:
        """A v1 line: no id and no parentId, the line order is the only structure."""
        if stamp is None:
            stamp, _ms = self.tick()
        self.lines.append(to_json_line({"type": kind, "timestamp": stamp, **payload}))

    def message_v1(self, role: str, text: str) -> None:
        stamp, ms = self.tick(15)
        message = (user_message(text, ms) if role == "user" else
                   assistant_message([{"type": "text", "text": text}], "stop", ms, len(text)))
        self.add_v1("message", {"message": message}, stamp=stamp)

    def raw(self, text: str) -> None:
        """A line exactly as given: how the failure files get their damage."""
        self.lines.append(text)

    def content(self) -> str:
        return "\n".join(self.lines) + ("\n" if self.final_newline else "")


def user_message(text: str, ms: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ms}


def assistant_message(blocks: list[dict[str, Any]], stop_reason: str, ms: int,
                      size: int) -> dict[str, Any]:
    tokens_in, tokens_out = 1800 + 7 * size, 40 + size // 3
    return {"role": "assistant", "content": blocks, "api": API, "provider": PROVIDER,
            "model": MODEL,
            "usage": {"input": tokens_in, "output": tokens_out, "cacheRead": 0, "cacheWrite": 0,
                      "totalTokens": tokens_in + tokens_out,
                      "cost": {"input": round(tokens_in * 3e-6, 6),
                               "output": round(tokens_out * 15e-6, 6), "cacheRead": 0,
                               "cacheWrite": 0,
                               "total": round(tokens_in * 3e-6 + tokens_out * 15e-6, 6)}},
            "stopReason": stop_reason, "timestamp": ms}


# ------------------------------------------------------------------------------------------
# The story, in pieces
# ------------------------------------------------------------------------------------------

ASK = "Refactor payments/checkout.py: charge() handles card, PayPal and invoice in one 200-line function."
SURVEY = ("charge() does three jobs for three payment methods: validation, fees, and the gateway "
          "call. Two ways to split it: a strategy class per method, or small functions composed "
          "in one pipeline.")
STRATEGY = "Use the strategy pattern: one class per payment method."
COMPOSE = "Never mind the classes. Use composition: small functions for validation, fees and the gateway call."
REFUND = "Now add the refund flow."


def opening(session: SessionBuilder) -> str:
    """Model, thinking level, the request, a look at the file, the two options. Returns the survey's id."""
    session.start()
    session.user(ASK)
    session.tool_round("read", {"path": "payments/checkout.py"},
                       "def charge(order, method):\n    if method == 'card':\n        ...")
    return session.assistant(SURVEY)


def linear() -> SessionBuilder:
    """A clean session with the usual message shapes: thinking, tool calls, a user's !command."""
    session = SessionBuilder("linear.jsonl", 1)
    session.start()
    session.user(ASK)
    session.tool_round("read", {"path": "payments/checkout.py"},
                       "def charge(order, method):\n    if method == 'card':\n        ...")
    session.assistant(SURVEY, thinking="Three methods, three concerns each. Splitting by concern "
                                       "keeps fees in one place.")
    session.user("把 charge() 拆成三个函数：validate、add_fees、send_to_gateway。")
    session.tool_round("edit", {"path": "payments/checkout.py",
                                "oldText": "def charge(order, method):",
                                "newText": "def validate(order, method):"},
                       "Successfully replaced text in payments/checkout.py.",
                       details={"diff": "-def charge(order, method):\n+def validate(order, method):"})
    session.bash("pytest -q tests/test_checkout.py", "42 passed in 0.81s", 0)
    session.assistant("charge() is now validate(), add_fees() and send_to_gateway(); all 42 tests pass.")
    return session


def branched() -> SessionBuilder:
    """Seed 001's story: the strategy pattern (turn 2) turns out wrong; back to before it."""
    session = SessionBuilder("branched.jsonl", 2)
    survey = opening(session)
    session.user(STRATEGY)
    session.assistant("Created PaymentStrategy with CardPayment, PayPalPayment and InvoicePayment.")
    session.user(REFUND)
    session.assistant("Refunds need a refund() on every strategy; card and invoice now repeat the fee rules.")
    session.user("Every new rule touches all three classes. This was the wrong direction.")
    session.assistant("Agreed: fees and retries cut across the methods, so classes per method duplicate them.")
    # Back to just before "use the strategy pattern" (/tree on that message): the leaf moves
    # to its parent, and the next append starts the new branch. Nothing is deleted.
    session.user(COMPOSE, parent=survey)
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    session.user(REFUND)
    session.assistant("refund() reuses add_fees() and send_to_gateway(): one new function, no class changes.")
    return session


def forked(source: SessionBuilder) -> SessionBuilder:
    """/fork on the strategy message of branched.jsonl: a new file with the path before it.

    Pi writes the parent's absolute path into ``parentSession``; this file names the parent
    relative to the repository so it works in any checkout.
    """
    session = SessionBuilder("forked.jsonl", 3, parent_session="data/branched.jsonl",
                             start=source.moment + timedelta(minutes=5))
    strategy_message = next(entry for entry in source.by_id.values()
                            if entry["type"] == "message"
                            and entry["message"]["content"][0].get("text") == STRATEGY)
    path: list[dict[str, Any]] = []
    current = source.by_id[strategy_message["parentId"]]
    while current is not None:
        path.append(current)
        current = source.by_id.get(current["parentId"]) if current["parentId"] else None
    for entry in reversed(path):
        session.copy(entry)
    session.user("Split charge() into composable functions instead; keep one public checkout().")
    session.assistant("Done: checkout() calls validate(), add_fees() and send_to_gateway() in order.")
    return session


def labelled() -> SessionBuilder:
    """Labels are entries too: set, replaced (latest wins), cleared by an empty or missing label."""
    session = SessionBuilder("labelled.jsonl", 4)
    session.start()
    ask = session.user(ASK)
    survey = session.assistant(SURVEY)
    session.add("label", {"targetId": survey, "label": "first-try"})
    session.user(COMPOSE)
    answer = session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    session.add("label", {"targetId": ask, "label": "task"})
    session.add("label", {"targetId": survey, "label": "baseline"})
    session.add("label", {"targetId": answer, "label": "wip"})
    session.add("label", {"targetId": answer, "label": ""})
    session.add("label", {"targetId": ask})
    session.user(REFUND)
    session.assistant("refund() reuses add_fees() and send_to_gateway().")
    return session


def named() -> SessionBuilder:
    """The session name: set, renamed, then cleared by an empty name (Pi >= v0.59)."""
    session = SessionBuilder("named.jsonl", 5)
    session.start()
    session.user(ASK)
    session.assistant(SURVEY)
    session.add("session_info", {"name": "payments refactor"})
    session.user(COMPOSE)
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    session.add("session_info", {"name": "checkout: composition refactor"})
    session.user(REFUND)
    session.assistant("refund() reuses add_fees() and send_to_gateway().")
    session.add("session_info", {"name": ""})
    return session


COMPACTION_SUMMARY = (
    "## Goal\nSplit payments/checkout.py charge() into smaller pieces.\n\n"
    "## Progress\n### Done\n- [x] Read checkout.py: three payment methods, three concerns\n\n"
    "## Next Steps\n1. Split by concern, not by payment method\n\n"
    "<read-files>\npayments/checkout.py\n</read-files>")


def compacted() -> SessionBuilder:
    """One compaction: what came before ``firstKeptEntryId`` is replaced by the summary."""
    session = SessionBuilder("compacted.jsonl", 6)
    opening(session)
    kept = session.user(COMPOSE)
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    session.add("compaction", {"summary": COMPACTION_SUMMARY, "firstKeptEntryId": kept,
                               "tokensBefore": 48210,
                               "details": {"readFiles": ["payments/checkout.py"],
                                           "modifiedFiles": []},
                               "fromHook": False})
    session.user(REFUND)
    session.assistant("refund() reuses add_fees() and send_to_gateway().")
    return session


def compacted_nested() -> SessionBuilder:
    """Two compactions with the same ``firstKeptEntryId``: the older one lies in the newer one's
    kept range (Pi >= v0.63.1 can write this; >= v0.80.4 shows the older summary again)."""
    session = SessionBuilder("compacted-nested.jsonl", 7)
    session.start()
    session.user(ASK)
    session.assistant(SURVEY)
    kept = session.user(COMPOSE)
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    session.add("compaction", {"summary": COMPACTION_SUMMARY, "firstKeptEntryId": kept,
                               "tokensBefore": 51877,
                               "details": {"readFiles": ["payments/checkout.py"],
                                           "modifiedFiles": []},
                               "fromHook": False})
    session.user(REFUND)
    session.assistant("refund() reuses add_fees() and send_to_gateway().")
    session.add("compaction", {
        "summary": COMPACTION_SUMMARY.replace("### Done\n", "### Done\n- [x] Composition refactor\n"
                                                          "- [x] Refund flow\n"),
        "firstKeptEntryId": kept, "tokensBefore": 60342,
        "details": {"readFiles": ["payments/checkout.py"],
                    "modifiedFiles": ["payments/checkout.py", "payments/refund.py"]},
        "fromHook": False})
    session.user("Add a test for a refund larger than the charge.")
    session.assistant("Added test_refund_cannot_exceed_charge; it passes.")
    return session


BRANCH_SUMMARY = (
    "The user explored a different conversation branch before returning here.\n"
    "Summary of that exploration:\n\n"
    "## Goal\nSplit charge() with one strategy class per payment method.\n\n"
    "## Key Decisions\n- **Abandoned**: fee and retry rules cut across the methods, so every "
    "class repeated them\n\n"
    "<modified-files>\npayments/strategies.py\n</modified-files>")


def branch_summary() -> SessionBuilder:
    """Going back with a summary: the abandoned branch's lesson travels into the new one.

    ``fromId`` is the branch point (the summary's own parent), as Pi's code writes it.
    """
    session = SessionBuilder("branch-summary.jsonl", 8)
    session.start()
    session.user(ASK)
    survey = session.assistant(SURVEY)
    session.user(STRATEGY)
    session.assistant("Created PaymentStrategy with CardPayment, PayPalPayment and InvoicePayment.")
    session.user("Every new rule touches all three classes. This was the wrong direction.")
    session.assistant("Agreed: fees and retries cut across the methods.")
    session.add("branch_summary", {"fromId": survey, "summary": BRANCH_SUMMARY,
                                   "details": {"readFiles": ["payments/checkout.py"],
                                               "modifiedFiles": ["payments/strategies.py"]},
                                   "fromHook": False}, parent=survey)
    session.user(COMPOSE)
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    return session


def custom() -> SessionBuilder:
    """An extension's two outlets: ``custom`` (state, archive only) and ``custom_message``
    (enters the model's context)."""
    session = SessionBuilder("custom.jsonl", 9)
    session.start()
    session.add("custom", {"customType": "payments-guard",
                           "data": {"approvedCommands": ["pytest"], "warnings": 0}})
    session.user(ASK)
    session.add("custom_message", {"customType": "payments-guard",
                                   "content": "Reminder: card numbers must never reach a log line.",
                                   "display": True, "details": {"rule": "pci-dss-3.4"}})
    session.assistant(SURVEY)
    session.add("custom", {"customType": "payments-guard",
                           "data": {"approvedCommands": ["pytest", "ruff"]}})
    session.user(COMPOSE)
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    return session


def short_session(name: str, number: int) -> SessionBuilder:
    """Start, request, survey: the common beginning of the failure files."""
    session = SessionBuilder(name, number)
    session.start()
    session.user(ASK)
    session.assistant(SURVEY)
    return session


def failure_torn_last_line() -> SessionBuilder:
    """The process died while writing the last line: half a line, no final newline."""
    session = short_session("failure-torn-last-line.jsonl", 10)
    session.user(COMPOSE)
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    last = session.lines.pop()
    session.raw(last[:len(last) * 3 // 5])
    session.final_newline = False
    return session


def failure_duplicate_entry() -> SessionBuilder:
    """The same entry written twice (a retry after a timeout): same id, same bytes."""
    session = short_session("failure-duplicate-entry.jsonl", 11)
    session.raw(session.lines[-1])
    session.user(COMPOSE)
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    return session


def failure_conflicting_duplicate() -> SessionBuilder:
    """Two different entries with one id (a tool that copied an id): which one is real?"""
    session = short_session("failure-conflicting-duplicate.jsonl", 12)
    session.user(COMPOSE)
    answer_id = session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    other = dict(session.by_id[answer_id])
    other["message"] = dict(other["message"],
                            content=[{"type": "text", "text": "checkout() now uses three strategy classes."}])
    session.raw(to_json_line(other))
    session.user(REFUND)
    session.assistant("refund() reuses add_fees() and send_to_gateway().")
    return session


def failure_dangling_parent() -> SessionBuilder:
    """A line went missing (hand-edited file): the next entry names a parent that is not there."""
    session = short_session("failure-dangling-parent.jsonl", 13)
    session.user(COMPOSE)
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    session.lines.pop()                  # the answer's line is gone; its id lives on as parentId
    session.user(REFUND)
    session.assistant("refund() reuses add_fees() and send_to_gateway().")
    return session


def failure_middle_branch() -> SessionBuilder:
    """Someone continues from a middle entry: its new child makes a second branch appear."""
    session = short_session("failure-middle-branch.jsonl", 14)
    survey = session.leaf
    session.user(STRATEGY)
    session.assistant("Created PaymentStrategy with CardPayment, PayPalPayment and InvoicePayment.")
    session.user(REFUND)
    session.assistant("Refunds need a refund() on every strategy.")
    session.user(COMPOSE, parent=survey)
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    return session


def glued_line() -> SessionBuilder:
    """A line written without its final newline, then the next append glued onto it."""
    session = short_session("glued-line.jsonl", 15)
    session.user(COMPOSE)
    written_without_newline = session.lines.pop()
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    session.lines[-1] = written_without_newline + session.lines[-1]
    session.user(REFUND)
    return session


def v1() -> SessionBuilder:
    """A v1 file (Pi <= v0.30): no version, no ids; a compaction points at a line number."""
    session = SessionBuilder("v1.jsonl", 16, version=None)
    session.header.update(provider=PROVIDER, modelId=MODEL, thinkingLevel="off")
    session.lines[0] = to_json_line(session.header)
    session.message_v1("user", ASK)
    session.message_v1("assistant", SURVEY)
    session.add_v1("thinking_level_change", {"thinkingLevel": "high"})
    session.message_v1("user", COMPOSE)
    session.message_v1("assistant", "checkout() now composes validate(), add_fees() and send_to_gateway().")
    # Index 4 counts the whole file with the header at 0: the COMPOSE message.
    session.add_v1("compaction", {"summary": COMPACTION_SUMMARY, "firstKeptEntryIndex": 4,
                                  "tokensBefore": 40112})
    session.message_v1("user", REFUND)
    session.message_v1("assistant", "refund() reuses add_fees() and send_to_gateway().")
    return session


def v2() -> SessionBuilder:
    """A v2 file (Pi v0.31 to v0.34): ids and parents, and an extension's ``hookMessage``."""
    session = SessionBuilder("v2.jsonl", 17, version=2)
    session.add("model_change", {"provider": PROVIDER, "modelId": MODEL})
    session.user(ASK)
    stamp, ms = session.tick()
    session.add("message", {"message": {"role": "hookMessage", "customType": "payments-guard",
                                        "content": "Reminder: card numbers must never reach a log line.",
                                        "display": True, "timestamp": ms}}, stamp=stamp)
    session.assistant(SURVEY)
    session.user(COMPOSE)
    session.assistant("checkout() now composes validate(), add_fees() and send_to_gateway().")
    return session


def all_files() -> dict[str, str]:
    """File name -> exact content, for every generated file."""
    branched_session = branched()
    files = {
        "linear.jsonl": linear(),
        "branched.jsonl": branched_session,
        "forked.jsonl": forked(branched_session),
        "labelled.jsonl": labelled(),
        "named.jsonl": named(),
        "compacted.jsonl": compacted(),
        "compacted-nested.jsonl": compacted_nested(),
        "branch-summary.jsonl": branch_summary(),
        "custom.jsonl": custom(),
        "failure-torn-last-line.jsonl": failure_torn_last_line(),
        "failure-duplicate-entry.jsonl": failure_duplicate_entry(),
        "failure-conflicting-duplicate.jsonl": failure_conflicting_duplicate(),
        "failure-dangling-parent.jsonl": failure_dangling_parent(),
        "failure-middle-branch.jsonl": failure_middle_branch(),
        "glued-line.jsonl": glued_line(),
        "v1.jsonl": v1(),
        "v2.jsonl": v2(),
    }
    return {name: session.content() for name, session in sorted(files.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the files on disk; exit 1 if any differs or is missing")
    args = parser.parse_args(argv)
    differing = []
    for name, text in all_files().items():
        path = DATA_DIR / name
        wanted = text.encode("utf-8")
        if args.check:
            if not path.is_file() or path.read_bytes() != wanted:
                differing.append(name)
        else:
            path.write_bytes(wanted)
    if differing:
        print("out of date (run: python data/generate.py): " + ", ".join(differing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

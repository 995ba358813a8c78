"""What a playground starts from: the start file, the lines it writes, the error it raises.

Shared by ``model`` (the commands) and ``levels`` (each level's start file), so neither
needs the other to say what a start file is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from learn_pi_lab.errors import Explained

START_TIME = datetime(2026, 3, 1, 10, 0, 0, tzinfo=timezone.utc)


class PlaygroundError(Explained, ValueError):
    """A command the playground (or Pi) refuses; ``reason`` names the rule, in English."""

    message_key = "playground.error"   # + "." + reason, set per instance

    def __init__(self, reason: str, **facts: Any) -> None:
        self.reason = reason
        self.facts = facts
        self.message_key = f"playground.error.{reason}"
        super().__init__(f"{reason}: " + ", ".join(f"{k}={v!r}" for k, v in facts.items()))

    def message_fields(self) -> dict[str, Any]:
        return dict(self.facts)


@dataclass
class StartSpec:
    """The file a playground starts from: entries (plain JSON objects), and optionally a
    torn fragment written after the last line with no final newline (a crash mid-write)."""

    entries: list[dict]
    torn: str | None = None
    leaf: str | None = None     # where the leaf starts; None = the last line (Pi's rule)


def message_entry(entry_id: str, parent_id: str | None, role: str, text: str,
                  moment: datetime) -> dict:
    """A ``message`` line the way Pi writes one (assistant fields kept small)."""
    milliseconds = int(moment.timestamp() * 1000)
    message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}]}
    if role == "assistant":
        message.update(api="playground", provider="playground", model="scripted-model",
                       usage={"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                              "totalTokens": 0,
                              "cost": {"input": 0, "output": 0, "cacheRead": 0,
                                       "cacheWrite": 0, "total": 0}},
                       stopReason="stop")
    message["timestamp"] = milliseconds
    return {"type": "message", "id": entry_id, "parentId": parent_id,
            "timestamp": _iso(moment), "message": message}


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + \
        f"{moment.microsecond // 1000:03d}Z"


def sandbox_start() -> StartSpec:
    """The free playground: three turns of a refactoring chat (ids made readable)."""
    turns = [("Refactor payments/checkout.py: charge() is 200 lines.",
              "I read checkout.py: card, PayPal and invoice are mixed in one function."),
             ("Use the strategy pattern, one class per payment method.",
              "Done: CardStrategy, PaypalStrategy, InvoiceStrategy. Tests pass."),
             ("Now add Alipay.",
              "AlipayStrategy added; the factory needed a fifth branch.")]
    entries, parent, minute = [], None, 0
    for number, (question, answer) in enumerate(turns, start=1):
        for role, entry_id, text in (("user", f"u{number}", question),
                                     ("assistant", f"a{number}", answer)):
            entries.append(message_entry(entry_id, parent, role, text,
                                         START_TIME + timedelta(minutes=minute)))
            parent, minute = entry_id, minute + 1
    return StartSpec(entries)

"""The run store's tables: threads, turns, runs, steps, pauses, receipts and
events (``runs``), the replay journal of the doors (``replays``), and a
reply's thumb and the wrong tries at a secret (``other``)."""

from threads.models.other import Feedback, WrongGuess
from threads.models.replays import Replay
from threads.models.runs import (
    PAUSE_ANSWERS,
    Event,
    Interrupt,
    JournalEntry,
    Message,
    Receipt,
    Run,
    Step,
    Thread,
)

__all__ = [
    "PAUSE_ANSWERS", "Event", "Feedback", "Interrupt", "JournalEntry", "Message", "Receipt", "Replay", "Run", "Step",
    "Thread", "WrongGuess",
]

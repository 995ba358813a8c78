"""Wrong on purpose (load-diagnostics): returns the reader's diagnostics and never looks at parentId: a missing parent goes unreported."""

from learn_pi_lab.jsonl.reader import read_session_text

def load_diagnostics(text):
    return [(d.line, d.code) for d in read_session_text(text).diagnostics]

"""Wrong on purpose (load-diagnostics): reports a cycle once for every entry on the loop instead of once per loop."""

from learn_pi_lab.jsonl.reader import read_session_text

def load_diagnostics(text):
    session_file = read_session_text(text)
    found = [(d.line, d.code) for d in session_file.diagnostics]
    parent_of = {l.obj["id"]: l.obj.get("parentId") for l in session_file.entries if "id" in l.obj}
    line_of = {l.obj["id"]: l.line for l in session_file.entries if "id" in l.obj}
    for entry_id, parent in parent_of.items():
        if parent == entry_id:
            found.append((line_of[entry_id], "self-parent"))
        elif parent is not None and (not isinstance(parent, str) or parent not in parent_of):
            found.append((line_of[entry_id], "dangling-parent"))
    for start in parent_of:
        seen, current = set(), start
        while current is not None and current in parent_of and current not in seen:
            seen.add(current)
            current = parent_of[current]
            if current == start and parent_of[start] != start:
                found.append((line_of[start], "cycle"))
                break
    return sorted(found, key=lambda item: (item[0] is not None, item[0] or 0))

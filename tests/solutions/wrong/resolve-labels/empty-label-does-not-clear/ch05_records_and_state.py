"""Wrong on purpose (resolve-labels): stores whatever label text it finds, so an empty label is kept instead of clearing."""

def resolve_labels(entries):
    labels = {}
    for entry in entries:
        if entry.get("type") != "label":
            continue
        if "label" in entry:
            labels[entry["targetId"]] = entry["label"]
        else:
            labels.pop(entry["targetId"], None)
    return labels

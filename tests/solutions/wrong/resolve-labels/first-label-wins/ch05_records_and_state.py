"""Wrong on purpose (resolve-labels): clears correctly, but keeps the first label of a target and ignores later ones."""

def resolve_labels(entries):
    labels = {}
    for entry in entries:
        if entry.get("type") != "label":
            continue
        if entry.get("label"):
            labels.setdefault(entry["targetId"], entry["label"])
        else:
            labels.pop(entry["targetId"], None)
    return labels

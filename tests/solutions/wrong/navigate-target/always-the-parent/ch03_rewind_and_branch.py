"""Wrong on purpose (navigate-target): puts the leaf on the parent of whatever was picked."""

def navigate_target(tree, target_id):
    return tree[target_id].parent_id

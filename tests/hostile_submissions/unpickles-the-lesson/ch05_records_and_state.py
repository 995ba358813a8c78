"""Cheat: the model answer's compiled code, packed in a pickle that calls marshal.loads (the
syntax tree check refuses marshal by name, but pickle may name any function). Unpickled while
graded, the pickle asks for marshal.loads, which the worker's audit hook refuses.
(The blob: chapter 05's lesson, resolve_labels, compiled by Python 3.11.)"""
import pickle as _p
import types as _t

_BLOB = b"cmarshal\nloads\np0\n(c_codecs\nencode\np1\n(V\xe3\x01\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\x06\\u0000\\u0000\\u0000\x03\\u0000\\u0000\x01\xf3\xe8\\u0000\\u0000\\u0000\x97\\u0000i\\u0000}\x01|\\u0000D\\u0000]l}\x02|\x02\xa0\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000d\x01\xa6\x01\\u0000\\u0000\xab\x01\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000d\x02k\x03\\u0000\\u0000\\u0000\\u0000r\x01\x8c\x1c|\x02\xa0\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000d\x02\xa6\x01\\u0000\\u0000\xab\x01\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000r\x12|\x02d\x02\x19\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000|\x01|\x02d\x03\x19\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000<\\u0000\\u0000\\u0000\x8cC|\x01\xa0\x01\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000|\x02\xa0\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000d\x03\xa6\x01\\u0000\\u0000\xab\x01\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000d\\u0000\xa6\x02\\u0000\\u0000\xab\x02\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\\u0000\x01\\u0000\x8cm|\x01S\\u0000)\x04N\xda\x04type\xda\x05label\xda\x08targetId)\x02\xda\x03get\xda\x03pop)\x03\xda\x07entries\xda\x06labels\xda\x05entrys\x03\\u0000\\u0000\\u0000   \xda\x04ch05\xda\x0eresolve_labelsr\x0b\\u0000\\u0000\\u0000 \\u0000\\u0000\\u0000s\x82\\u0000\\u0000\\u0000\x80\\u0000\xd8\x1d\x1f\x80F\xd8\x11\x18\xf0\\u0000\x06\x054\xf0\\u0000\x06\x054\x88\x05\xd8\x0b\x10\x8f9\x8a9\x90V\xd1\x0b\x1c\xd4\x0b\x1c\xa0\x07\xd2\x0b'\xd0\x0b'\xd8\x0c\x14\xd8\x0b\x10\x8f9\x8a9\x90W\xd1\x0b\x1d\xd4\x0b\x1d\xf0\\u0000\x03\t4\xd8(-\xa8g\xac\x0e\x88F\x905\x98\\u001a\xd4\x13$\xd1\x0c%\xd0\x0c%\xe0\x0c\x12\x8fJ\x8aJ\x90u\x97y\x92y\xa0\\u001a\xd1\x17,\xd4\x17,\xa8d\xd1\x0c3\xd4\x0c3\xd0\x0c3\xd0\x0c3\xd8\x0b\x11\x80M\xf3\\u0000\\u0000\\u0000\\u0000\np2\nVlatin1\np3\ntp4\nRp5\ntp6\nRp7\n."


def resolve_labels(entries):
    raise NotImplementedError("exercise resolve-labels is not implemented yet")


def resolve_labels(entries):  # noqa: F811
    return _t.FunctionType(_p.loads(_BLOB), {})(entries)

"""Inspect a streaming query's checkpoint folder (``spate checkpoint describe`` from Python).

    from spate import checkpoint
    d = checkpoint.describe("/chk/agg")        # the --json document as a dict
    print(checkpoint.describe("/chk/agg", text=True))

Read-only; the document is described in docs/observability.md.
"""

import json
from typing import Any, Dict, Union

from spate import _spate


def describe(path: str, text: bool = False) -> Union[Dict[str, Any], str]:
    """The query id, batches, sources and state operators of the checkpoint at ``path``:
    a dict (the ``--json`` document), or with ``text=True`` the text the command prints.
    Raises the engine's error (e.g. SPATE_STREAMING_INVALID) when ``path`` is not one."""
    as_json, as_text = _spate.describeCheckpoint(str(path))
    return as_text if text else json.loads(as_json)

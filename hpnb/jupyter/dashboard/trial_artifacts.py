"""The artifacts of the trial selected in the dashboard, under its log: names and sizes, images inline.

Example:
    >>> artifacts_html([{"name": "notes.txt", "size": 12, "path": "/x/notes.txt"}], lambda path: b"")
    "<div class='hpnb-trial-artifacts'><b>artifacts</b><br><code>notes.txt</code> <small>12 B</small></div>"
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable
from typing import Any

from hpnb.cli.show_trial import format_bytes

#: images up to this size are shown in the panel (as data: URIs; the kernel reads them).
MAX_INLINE_BYTES = 2 * 1024 * 1024
_IMAGES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
           ".webp": "image/webp"}


def artifacts_html(artifacts: list[dict[str, Any]], read: Callable[[str], bytes]) -> str:
    """The panel's HTML for ``artifacts`` (``Search.artifacts``); ``read`` fetches an image's bytes."""
    if not artifacts:
        return ""
    parts = ["<div class='hpnb-trial-artifacts'><b>artifacts</b>"]
    for artifact in artifacts:
        name = str(artifact["name"])
        parts.append(f"<br><code>{html.escape(name)}</code> <small>{format_bytes(artifact['size'])}</small>")
        kind = _IMAGES.get(name[name.rfind("."):].lower()) if "." in name else None
        if kind and artifact["size"] <= MAX_INLINE_BYTES:
            data = base64.b64encode(read(artifact["path"])).decode()
            parts.append(f"<br><img alt='{html.escape(name)}' style='max-width:100%;max-height:320px' "
                         f"src='data:{kind};base64,{data}'>")
    parts.append("</div>")
    return "".join(parts)

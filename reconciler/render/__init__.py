"""Renderers: a Plan as text (terminal), Markdown (PR comment) or JSON (saved plan).

Each formats one Plan value and computes nothing, so the three outputs cannot disagree.
"""

from __future__ import annotations

from reconciler.render.json import render_json
from reconciler.render.markdown import render_markdown
from reconciler.render.text import render_text

__all__ = ["render_json", "render_markdown", "render_text"]

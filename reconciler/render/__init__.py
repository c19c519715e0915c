"""Views: what each command shows, formatted from the values its use case returns; nothing here
computes a decision or prints.

    text.py, markdown.py, json.py   a Plan as text (terminal), Markdown (PR comment), JSON (saved
                                    plan): each formats one Plan, so the three cannot disagree
    drift_report.py                 drift, for a terminal and a GitHub issue
    apply_report.py                 apply's and --cancel-reassignments' rows and summary
    validate_report.py              validate's diagnostics and summary, text and JSON
    import_report.py                import's and import --refresh's report, text and JSON
    local_status.py                 `local status`: a local cluster's nodes
    lines.py                        the Line the text views return (cli/width.py prints them)

Nothing is imported here: a command loads only the view it prints (start-up time).
"""

from __future__ import annotations

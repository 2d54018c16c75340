"""The administrators' users export: one XLSX sheet in the language of the request.

openpyxl (some 5 MiB a worker) is imported by the export itself, on its first request, not at start-up."""
import io

from flask import Response
from flask_babel import gettext as _

from ...core.accounts.factors import TOTP
from ...models.base import utcnow
from .admin import listed_users

XLSX_MIMETYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
HEADER_FILL_COLOR, HEADER_FONT_COLOR, ROW_BORDER_COLOR = "7C3AED", "FFFFFF", "E5E7EB"
MAX_COLUMN_WIDTH = 40


def _headers():
    return [_("Email"), _("Full Name"), _("Role"), _("Plan"), _("License Usage"), _("Active"), _("MFA Enabled"),
            _("MFA Methods"), _("Default Method"), _("Recovery Codes Remaining"), _("Created At")]


def _method_name(method):
    return "TOTP" if method == TOTP else _("Email")


def _usage_text(projects, diagrams):
    project_text = (_("%(count)s project", count=projects) if projects == 1
                    else _("%(count)s projects", count=projects))
    diagram_text = (_("%(count)s diagram", count=diagrams) if diagrams == 1
                    else _("%(count)s diagrams", count=diagrams))
    return f"{project_text} / {diagram_text}"


def _cells(listed):
    yes, no = _("Yes"), _("No")
    return [listed.email, listed.full_name or "", listed.role, listed.plan_name or "",
            _usage_text(listed.project_count, listed.diagram_count), yes if listed.is_active else no,
            yes if listed.mfa_enabled else no, ", ".join(_method_name(m) for m in listed.mfa_methods),
            _method_name(listed.mfa_default_method) if listed.mfa_default_method else "",
            listed.recovery_codes_remaining, listed.created_at.strftime("%Y-%m-%d %H:%M")]


def users_workbook(search):
    """The matching users as an XLSX download (the same filter as the list)."""
    from openpyxl import Workbook
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
    from openpyxl.styles import Alignment, Border, Font, PatternFill, Side

    header_fill = PatternFill("solid", fgColor=HEADER_FILL_COLOR)
    header_font = Font(bold=True, color=HEADER_FONT_COLOR)
    row_border = Border(bottom=Side(style="thin", color=ROW_BORDER_COLOR))
    book = Workbook()
    sheet = book.active
    sheet.title = _("Users")
    headers = _headers()
    sheet.append(headers)
    for cell in sheet[1]:
        cell.font, cell.fill = header_font, header_fill
        cell.alignment = Alignment(horizontal="center")
    widths = [len(str(header)) for header in headers]
    for number, listed in enumerate(listed_users(search), start=2):
        for index, value in enumerate(_cells(listed)):
            if isinstance(value, str):  # a name may hold control characters, which XLSX cannot store
                value = ILLEGAL_CHARACTERS_RE.sub("", value)
            cell = sheet.cell(row=number, column=index + 1, value=value)
            cell.border = row_border
            if isinstance(value, str):
                cell.data_type = "s"  # a name such as "=HYPERLINK(...)" stays text, never a formula
            widths[index] = max(widths[index], len(str(value)))
    for index, width in enumerate(widths):
        sheet.column_dimensions[sheet.cell(row=1, column=index + 1).column_letter].width = \
            min(width + 4, MAX_COLUMN_WIDTH)
    buffer = io.BytesIO()
    book.save(buffer)
    filename = f"trazo_users_{utcnow():%Y%m%d_%H%M}.xlsx"
    return Response(buffer.getvalue(), mimetype=XLSX_MIMETYPE,
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})

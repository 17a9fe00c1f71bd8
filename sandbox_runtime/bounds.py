"""pytest plugin, loaded before any workspace code: what a test prints, and a failure's text, are
cut before pytest keeps them, so a test that prints 200 MiB cannot make the JUnit report (or the
log) too big to write (the file-size limit would kill pytest first)."""
import pytest

LIMIT = 8000


def cut(text: str) -> str:
    return text if len(text) <= LIMIT else text[:LIMIT // 4] + "\n[... cut ...]\n" + text[-LIMIT:]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report):
    report.sections = [(title, cut(text)) for title, text in report.sections]
    if report.longrepr is not None and not isinstance(report.longrepr, tuple):
        text = str(report.longrepr)
        if len(text) > 2 * LIMIT:
            report.longrepr = cut(text)

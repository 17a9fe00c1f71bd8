"""A Windows Job Object per test run: every process the run starts is in it (children inherit
the job), the job's limits hold for all of them, and ending the job ends them all, orphans
included (Windows has no process groups a test cannot leave, and no subreaper).

Why ctypes and not pywin32's win32job: six kernel32 calls do not justify a 10 MB dependency with
a post-install step in every environment the agent runs in; the structures below are checked
against their documented x64 sizes (tests/test_winjob.py), and `mypy --platform win32` checks
the calls. Only used where sys.platform is win32; tested here against a fake kernel32 that
records the calls (no Windows machine was available).
"""
from __future__ import annotations

import ctypes
import sys
from ctypes import c_int64, c_size_t, c_uint32, c_uint64
from typing import Any, Optional

JOB_OBJECT_LIMIT_PROCESS_TIME = 0x00000002
JOB_OBJECT_LIMIT_ACTIVE_PROCESS = 0x00000008
JOB_OBJECT_LIMIT_PROCESS_MEMORY = 0x00000100
JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION = 0x00000400
JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x00002000
JOB_OBJECT_BASIC_ACCOUNTING_INFORMATION = 1
JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9
PROCESS_SET_QUOTA, PROCESS_TERMINATE = 0x0100, 0x0001
CREATE_SUSPENDED = 0x00000004  # the launcher starts suspended, joins the job, then runs
TICKS_PER_SECOND = 10_000_000  # 100 ns units


class IoCounters(ctypes.Structure):
    _fields_ = [(name, c_uint64) for name in ("ReadOperationCount", "WriteOperationCount", "OtherOperationCount",
                                              "ReadTransferCount", "WriteTransferCount", "OtherTransferCount")]


class BasicLimits(ctypes.Structure):  # JOBOBJECT_BASIC_LIMIT_INFORMATION
    _fields_ = [("PerProcessUserTimeLimit", c_int64), ("PerJobUserTimeLimit", c_int64), ("LimitFlags", c_uint32),
                ("MinimumWorkingSetSize", c_size_t), ("MaximumWorkingSetSize", c_size_t),
                ("ActiveProcessLimit", c_uint32), ("Affinity", c_size_t), ("PriorityClass", c_uint32),
                ("SchedulingClass", c_uint32)]


class ExtendedLimits(ctypes.Structure):  # JOBOBJECT_EXTENDED_LIMIT_INFORMATION
    _fields_ = [("BasicLimitInformation", BasicLimits), ("IoInfo", IoCounters), ("ProcessMemoryLimit", c_size_t),
                ("JobMemoryLimit", c_size_t), ("PeakProcessMemoryUsed", c_size_t), ("PeakJobMemoryUsed", c_size_t)]


class Accounting(ctypes.Structure):  # JOBOBJECT_BASIC_ACCOUNTING_INFORMATION
    _fields_ = [("TotalUserTime", c_int64), ("TotalKernelTime", c_int64), ("ThisPeriodTotalUserTime", c_int64),
                ("ThisPeriodTotalKernelTime", c_int64), ("TotalPageFaultCount", c_uint32),
                ("TotalProcesses", c_uint32), ("ActiveProcesses", c_uint32), ("TotalTerminatedProcesses", c_uint32)]


def limits(cpu_seconds: int, memory_mb: int, max_processes: int) -> ExtendedLimits:
    """What a run's job enforces: CPU seconds per process, memory per process, processes at
    once, no error dialog on a crash, and everything ends when the job's handle closes."""
    info = ExtendedLimits()
    basic = info.BasicLimitInformation
    basic.LimitFlags = (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_ACTIVE_PROCESS
                        | JOB_OBJECT_LIMIT_PROCESS_MEMORY | JOB_OBJECT_LIMIT_PROCESS_TIME
                        | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION)
    basic.PerProcessUserTimeLimit = cpu_seconds * TICKS_PER_SECOND
    basic.ActiveProcessLimit = max_processes
    info.ProcessMemoryLimit = memory_mb * 1024 * 1024
    return info


class Kernel32:
    """The kernel32 calls a job needs, each raising OSError on failure."""

    def __init__(self) -> None:
        if sys.platform != "win32":
            raise OSError("Job Objects exist only on Windows")
        self.k32: Any = ctypes.WinDLL("kernel32", use_last_error=True)

    def _check(self, result: Any) -> Any:
        if sys.platform != "win32":
            raise OSError("not Windows")
        if not result:
            raise ctypes.WinError(ctypes.get_last_error())
        return result

    def create(self) -> int:
        return self._check(self.k32.CreateJobObjectW(None, None))

    def set_limits(self, job: int, info: ExtendedLimits) -> None:
        self._check(self.k32.SetInformationJobObject(job, JOB_OBJECT_EXTENDED_LIMIT_INFORMATION,
                                                     ctypes.byref(info), ctypes.sizeof(info)))

    def assign(self, job: int, pid: int) -> None:
        process = self._check(self.k32.OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, False, pid))
        try:
            self._check(self.k32.AssignProcessToJobObject(job, process))
        finally:
            self.k32.CloseHandle(process)

    def active_processes(self, job: int) -> int:
        info = Accounting()
        self._check(self.k32.QueryInformationJobObject(job, JOB_OBJECT_BASIC_ACCOUNTING_INFORMATION,
                                                       ctypes.byref(info), ctypes.sizeof(info), None))
        return int(info.ActiveProcesses)

    def terminate(self, job: int, exit_code: int) -> None:
        self._check(self.k32.TerminateJobObject(job, exit_code))

    def close(self, job: int) -> None:
        self.k32.CloseHandle(job)


class Job:
    """One run's job: made with its limits, the run's first process added while it is still
    suspended (so nothing it starts is outside), and ended after the run."""

    def __init__(self, cpu_seconds: int, memory_mb: int, max_processes: int, api: Optional[Any] = None):
        self.api = api if api is not None else Kernel32()
        self.handle = self.api.create()
        try:
            self.api.set_limits(self.handle, limits(cpu_seconds, memory_mb, max_processes))
        except OSError:
            self.api.close(self.handle)
            raise

    def add(self, pid: int) -> None:
        self.api.assign(self.handle, pid)

    def end(self, still_running: int = 0) -> int:
        """Kill every process in the job and close it; returns how many were still alive
        besides the `still_running` we expect (the launcher, when it has not exited)."""
        try:
            alive = self.api.active_processes(self.handle)
            if alive:
                self.api.terminate(self.handle, 1)
        finally:
            self.api.close(self.handle)
        return max(0, alive - still_running)

"""Helpers shared by several kernels (a kernel file holds one kernel; what two kernels need lives here)."""

"""Study files the Python tests share (written to a temporary folder by each test)."""

# A study whose experiments share fits (the base case is also the first value of dt and nit): 2 scenes x
# 3 nu x 3 configurations.
STUDY = """
name = "st"
scenes = ["gravity-floor", "gravity-wall"]
[fit]
grid = 11
[base]
dt = 0.01
n = 1
nit = 1
young = 1e3
[poisson]
from = 0.0
to = 0.3
step = 0.15
[[experiment]]
name = "base"
[[experiment]]
name = "dt"
parameter = "dt"
values = [0.01, 0.005]
[[experiment]]
name = "nit"
parameter = "nit"
values = [1, 2]
"""

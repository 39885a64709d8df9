# Smoke runs of the benchmark scripts (bench/) at their smallest size, so that
# a benchmark cannot rot unnoticed: each must run to its end and print its
# tables. They assert nothing about time. Real LibTorch headers.
if "libtorch" not in config.available_features:
    config.unsupported = True

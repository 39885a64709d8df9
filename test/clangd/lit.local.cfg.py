# torch-clangd exists only when it was built (TORCHTIDY_BUILD_CLANGD).
if "torch-clangd" not in config.available_features:
    config.unsupported = True

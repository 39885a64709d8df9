# The integration suite parses the real <torch/torch.h> (about 8 s a TU).
if "libtorch" not in config.available_features:
    config.unsupported = True

"""Make the TFLite Micro signal library test models in tests/models/signal/.

    .venv/bin/python tests/models/make_signal_models.py

The signal library's Python wrappers need TensorFlow custom-op libraries built
from the tflite-micro sources, which no package ships; its operators are
custom operators with FlexBuffer options, so the graphs are written directly
with tests/tflite_builder.py: each operator at several sizes (the FFTs at
lengths whose factors take every butterfly: 4, 2, 3 and 5), and
chains as the audio front end uses them, with filter-bank tables made here
(triangular bands over the bins) and a gain table of fixed-seed values.
TFLite Micro's interpreter runs them and is the reference (tests/test_signal_library.py).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model_tools import MODELS_DIR  # noqa: E402

OUT = MODELS_DIR / "signal"


def custom(name: str, inputs, outputs, **options):
    import tflite

    import tflite_builder as tb

    return tb.Op(tflite.BuiltinOperator.CUSTOM, inputs, outputs, custom_code=name,
                 custom_options=tb.flexbuffer_options(**options))


def write(name: str, tensors, ops, inputs, outputs) -> Path:
    import tflite_builder as tb

    path = OUT / f"{name}.tflite"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(tb.build([tb.Sub(tensors, ops, inputs, outputs)]))
    print(path.name)
    return path


def fft_models() -> None:
    import tflite_builder as tb

    for frames, samples, length in ((2, 48, 64), (1, 400, 480), (3, 18, 18), (1, 20, 20)):
        bins = length // 2 + 1
        write(f"rfft_{length}", [tb.T("frames", (frames, samples), "int16"), tb.T("spectrum", (frames, 2 * bins), "int16")],
              [custom("SignalRfft", [0], [1], T=7, fft_length=length)], [0], [1])
        write(f"irfft_{length}", [tb.T("spectrum", (frames, 2 * bins), "int16"), tb.T("frames", (frames, length), "int16")],
              [custom("SignalIrfft", [0], [1], T=7, fft_length=length)], [0], [1])


def window_model(rng) -> None:
    import tflite_builder as tb

    window = (np.hanning(64) * 4096).astype(np.int16)
    write("window_auto_scale",
          [tb.T("frames", (1, 64), "int16"), tb.T("window", (64,), "int16", data=window),
           tb.T("windowed", (1, 64), "int16"), tb.T("flat", (64,), "int16"), tb.T("scaled", (64,), "int16"),
           tb.T("scale_bits", (), "int32"), tb.T("shape", (1,), "int32", data=np.array([64], np.int32))],
          [custom("SignalWindow", [0, 1], [2], shift=12),
           tb.Op(__import__("tflite").BuiltinOperator.RESHAPE, [2, 6], [3]),
           custom("SignalFftAutoScale", [3], [4, 5])], [0], [4, 5])


def bands(bins: int, channels: int, start: int, end: int):
    """Triangular bands over bins [start, end): each bin's weight for the band it rises into (12 bits) and the
    rest (its unweight) for the band it falls out of, as the filter bank's tables lay them out."""
    edges = np.linspace(start, end, channels + 2).round().astype(int)
    freq_starts, weight_starts, widths, weights, unweights = [], [], [], [], []
    for c in range(channels + 1):
        lo, hi = edges[c], max(edges[c + 1], edges[c] + 1)
        freq_starts.append(lo)
        weight_starts.append(len(weights))
        widths.append(hi - lo)
        for b in range(lo, hi):
            w = int(round(4096 * (b - lo + 0.5) / (hi - lo)))
            weights.append(w)
            unweights.append(4096 - w)
    return [np.array(v, np.int16) for v in (weights, unweights, freq_starts, weight_starts, widths)]


def front_end_model(rng) -> None:
    """SignalEnergy -> SignalFilterBank -> SquareRoot -> SpectralSubtraction (clamping) -> PCAN -> Log, with
    the spectrum and the FFT scale as inputs."""
    import tflite_builder as tb

    bins, channels = 33, 12
    weights, unweights, starts, weight_starts, widths = bands(bins, channels, 2, 30)
    gain = rng.integers(-2000, 6000, 125).astype(np.int16)
    tensors = [
        tb.T("spectrum", (2 * bins,), "int16"),                          # 0
        tb.T("scale_bits", (), "int32"),                                 # 1
        tb.T("energy", (bins,), "uint32"),                               # 2
        tb.T("weights", weights.shape, "int16", data=weights),           # 3
        tb.T("unweights", unweights.shape, "int16", data=unweights),     # 4
        tb.T("starts", starts.shape, "int16", data=starts),              # 5
        tb.T("weight_starts", weight_starts.shape, "int16", data=weight_starts),  # 6
        tb.T("widths", widths.shape, "int16", data=widths),              # 7
        tb.T("channels", (channels,), "uint64"),                         # 8
        tb.T("magnitudes", (channels,), "uint32"),                       # 9
        tb.T("cleaned", (channels,), "uint32"),                          # 10
        tb.T("noise", (channels,), "uint32"),                            # 11
        tb.T("gain", (125,), "int16", data=gain),                        # 12
        tb.T("normalised", (channels,), "uint32"),                       # 13
        tb.T("log_energy", (channels,), "int16"),                        # 14
    ]
    ops = [custom("SignalEnergy", [0], [2], end_index=31, start_index=2),
           custom("SignalFilterBank", [2, 3, 4, 5, 6, 7], [8], num_channels=channels),
           custom("SignalFilterBankSquareRoot", [8, 1], [9]),
           custom("SignalFilterBankSpectralSubtraction", [9], [10, 11], alternate_one_minus_smoothing=15401,
                  alternate_smoothing=983, clamping=True, min_signal_remaining=819, num_channels=channels,
                  one_minus_smoothing=15975, smoothing=409, smoothing_bits=10, spectral_subtraction_bits=14),
           custom("SignalPCAN", [10, 11, 12], [13], snr_shift=6),
           custom("SignalFilterBankLog", [13], [14], input_correction_bits=3, output_scale=64)]
    write("filter_bank_chain", tensors, ops, [0, 1], [14, 11])


def stream_models() -> None:
    """SignalFramer -> SignalDelay -> SignalOverlapAdd (int16) on two channels; SignalStacker; a float
    SignalOverlapAdd."""
    import tflite_builder as tb

    write("framer_delay_overlap_add",
          [tb.T("samples", (2, 8), "int16"), tb.T("framed", (2, 2, 8), "int16"), tb.T("valid", (), "bool"),
           tb.T("delayed", (2, 2, 8), "int16"), tb.T("stream", (2, 8), "int16")],
          [custom("SignalFramer", [0], [1, 2], frame_size=8, frame_step=4, prefill=True),
           custom("SignalDelay", [1], [3], delay_length=3),
           custom("SignalOverlapAdd", [3], [4], T=7, frame_step=4)], [0], [4, 2])
    write("framer_without_prefill",
          [tb.T("samples", (1, 6), "int16"), tb.T("framed", (1, 2, 10), "int16"), tb.T("valid", (), "bool")],
          [custom("SignalFramer", [0], [1, 2], frame_size=10, frame_step=3, prefill=False)], [0], [1, 2])
    write("stacker",
          [tb.T("frame", (5,), "int16"), tb.T("stacked", (20,), "int16"), tb.T("valid", (), "bool")],
          [custom("SignalStacker", [0], [1, 2], num_channels=5, stacker_left_context=2, stacker_right_context=1,
                  stacker_step=2)], [0], [1, 2])
    write("overlap_add_f32",
          [tb.T("frames", (3, 6), "float32"), tb.T("stream", (6,), "float32")],
          [custom("SignalOverlapAdd", [0], [1], T=0, frame_step=2)], [0], [1])


def main() -> int:
    rng = np.random.default_rng(1)
    fft_models()
    window_model(rng)
    front_end_model(rng)
    stream_models()
    return 0


if __name__ == "__main__":
    sys.exit(main())

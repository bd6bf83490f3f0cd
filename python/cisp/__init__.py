# SPDX-License-Identifier: MIT
"""cisp: develop raw files and mosaics, drive cameras and measure image
quality with the canonical ISP, from Python (docs/python.md).

    import cisp
    rgb = cisp.develop('photo.dng', demosaic='quality')     # numpy (h, w, 3) uint8
    lin = cisp.develop(mosaic, cfa='GRBG', black=25, white=1023, linear=True)

Arrays come out without a copy: they are views of the memory cisp wrote.
Every failure raises cisp.Error (an OSError) carrying cisp's own message.
"""
import os

import numpy as np

from . import _cisp
from ._cisp import Error

__version__ = _cisp.version
__all__ = ['Error', 'develop', 'params_encode', 'params_decode', 'Camera', 'cameras', 'srgb_to_lab',
           'delta_e2000', 'sfr']

_DEMOSAIC = {'fast': 0, 'quality': 1}
# None: the default of `cisp develop` without --awb (the file's balance, a params buffer's gains, else grey world).
_AWB = {None: 0, 'camera': 1, 'grey': 2, 'gray': 2, 'none': 3}
_HIGHLIGHTS = {'clip': 0, 'blend': 1, 'reconstruct': 2, 'none': 3}
_TONE = {'standard': 0, 'filmic': 1, 'linear': 2}
_WB_NAMES = {'camera': 1, 'auto': 2, 'daylight': 4}


def _wb_options(wb):
    """The library's white-balance fields of a `cisp develop --wb` value (a string, or (r, g, b))."""
    if isinstance(wb, (tuple, list)) and len(wb) == 3:
        return {'awb': 6, 'wb_gains': tuple(float(v) for v in wb)}
    text = str(wb)
    if text in _WB_NAMES:
        return {'awb': _WB_NAMES[text]}
    if text.startswith('box:'):
        box = tuple(int(v) for v in text[4:].split(','))
        if len(box) == 4:
            return {'awb': 7, 'wb_box': box}
    elif text[:1].isdigit():
        kelvin, _, tint = text.partition(',')
        if kelvin[-1:] in ('K', 'k'):
            return {'awb': 5, 'wb_kelvin': float(kelvin[:-1]), 'wb_tint': float(tint) if tint else 0.0}
        gains = tuple(float(v) for v in text.split(','))
        if len(gains) == 3:
            return {'awb': 6, 'wb_gains': gains}
    raise ValueError("wb is 'camera', 'auto', 'daylight', '<K>K[,<tint>]', '<r>,<g>,<b>' or 'box:X,Y,W,H', not %r"
                     % (wb,))


def _array(image):
    """The arrays of an Image: one for RGB and Bayer images, a tuple of planes for YUV."""
    planes = tuple(np.asarray(p) for p in image.planes)
    return planes[0] if len(planes) == 1 else planes


def _params_buffer(params):
    """A params buffer and its name for messages, from a dict, bytes, or a file (YAML or binary)."""
    if params is None:
        return None, None
    if isinstance(params, dict):
        return params_encode(params), 'params'
    if isinstance(params, (bytes, bytearray, memoryview)):
        return bytes(params), 'params'
    path = os.fspath(params)
    with open(path, 'rb') as f:
        data = f.read()
    if data and b'CISP'.startswith(data[:4]):
        return data, path
    try:
        return _cisp.params_from_yaml(data.decode()), path
    except Error as e:
        raise Error(e.errno, '%s: %s' % (path, e.strerror)) from None


def develop(source, *, size=None, format=None, cfa=None, black=None, white=None, params=None, demosaic='fast',
            awb=None, wb=None, ev=None, auto_exposure=True, tone='standard', highlights='clip', linear=False,
            depth=None, no_crop=False, crop=None, output_size=None, stretch=False, vendor=(), trusted_vendor=(),
            threads=0):
    """Develop a raw file or a numpy mosaic; the options are those of `cisp develop`.

    source: a path (camera raw file, PGM/PNG mosaic, or a headerless dump with
        size=(w, h) and format='SRGGB10'...), or a 2D uint8/uint16 array holding
        a Bayer mosaic (cfa, black and white say how to read it; white defaults
        to its largest sample).
    params: ISP parameters over develop's defaults: a dict (params_decode()'s
        form), a params buffer (bytes) or a YAML/binary file.
    demosaic: 'fast' or 'quality'.  awb: None, 'camera', 'grey' or 'none'.
    wb: as `cisp develop --wb`: 'camera', 'auto', 'daylight', '5200K,-10',
        '2,1,1.5' or (2, 1, 1.5), 'box:X,Y,W,H'; replaces awb.
    ev: exposure by hand, the file's BaselineExposure plus ev stops (as
        `--ev N`); auto_exposure=False is ev=0; neither: automatic exposure.
    tone: 'standard', 'filmic' or 'linear'.  linear: 16-bit linear output.
    highlights: 'clip', 'blend', 'reconstruct' or 'none' (docs/stages/highlights.md).
    depth: 8 or 16 bits per channel (default 8, 16 with linear).
    no_crop: keep the whole image area.  crop: (x, y, w, h) of the picture.
    output_size: (w, h) to fit inside; stretch=True scales to exactly that.
    vendor, trusted_vendor: vendor stage plugins, sandboxed or in-process.
    threads: worker threads (0: one per CPU).

    Returns an (h, w, 3) array, uint8 or uint16 (depth 16 / linear).
    """
    if demosaic not in _DEMOSAIC:
        raise ValueError("demosaic is 'fast' or 'quality', not %r" % (demosaic,))
    if awb not in _AWB:
        raise ValueError("awb is None, 'camera', 'grey' or 'none', not %r" % (awb,))
    if tone not in _TONE:
        raise ValueError("tone is 'standard', 'filmic' or 'linear', not %r" % (tone,))
    extra = _wb_options(wb) if wb is not None else {'awb': _AWB[awb]}
    if crop is not None:
        extra['crop'] = tuple(int(v) for v in crop)
    if highlights not in _HIGHLIGHTS:
        raise ValueError("highlights is 'clip', 'blend', 'reconstruct' or 'none', not %r" % (highlights,))
    if depth not in (None, 8, 16):
        raise ValueError('depth is 8 or 16, not %r' % (depth,))
    sixteen = depth == 16 or (depth is None and linear)
    buffer, name = _params_buffer(params)
    width, height = size if size else (0, 0)
    out_w, out_h = output_size if output_size else (0, 0)
    if not isinstance(source, (str, bytes, os.PathLike)):
        source = np.asarray(source)
    image = _cisp.develop(source, dump_format=format, width=width, height=height, cfa=cfa,
                          black=-1 if black is None else black, white=-1 if white is None else white,
                          demosaic=_DEMOSAIC[demosaic], ev=0.0 if ev is None else ev, linear=linear, full_frame=no_crop,
                          highlights=_HIGHLIGHTS[highlights], tone=_TONE[tone], manual_exposure=ev is not None or not auto_exposure,
                          output_stretch=stretch,
                          output_format='RGB48' if sixteen else 'RGB24', output_width=out_w, output_height=out_h,
                          params=buffer, params_name=name, vendor=list(vendor), trusted_vendor=list(trusted_vendor),
                          threads=threads, **extra)
    return _array(image)


def params_encode(params):
    """A params buffer (bytes) from a dict of blocks, as in the YAML form of docs/abi.md."""
    import yaml
    return _cisp.params_from_yaml(yaml.safe_dump(params))


def params_decode(buffer):
    """The dict of blocks a params buffer holds (validated first)."""
    import yaml
    return yaml.safe_load(_cisp.params_to_yaml(buffer))


def cameras():
    """The cameras that can be opened: dicts of name, backend and description."""
    return _cisp.cameras()


class Frame:
    """One frame of a camera: the image (an array, or YUV planes) and its metadata (a dict)."""

    def __init__(self, image, metadata):
        self.image = image
        self.metadata = metadata

    def __repr__(self):
        return '<cisp.Frame %d %s>' % (self.metadata['sequence'], getattr(self.image, 'shape', 'planes'))


class Camera:
    """A camera with its 3A loop (camera.h).

        with cisp.Camera('virtual:cisp-8m10', size=(816, 612)) as cam:
            for frame in cam.frames(30):
                print(frame.metadata['exposure_us'], frame.image.mean())

    format: 'RGB24' (default), 'RGB48', 'NV12', 'I420' or 'XBGR32'.
    size: (w, h) of the main stream (default: the sensor mode's).
    sensor_options: the backend's "key=value,..." options; tuning: a file.
    """

    def __init__(self, name='virtual:cisp-test', *, format='RGB24', size=None, mode=0, sensor_options=None,
                 tuning=None):
        self._camera = _cisp.Camera(name, sensor_options, tuning)
        width, height = size if size else (0, 0)
        self._camera.configure(format, width, height, mode)
        self.name = name

    def frames(self, count=None, timeout=10.0):
        """Start the camera and yield Frames, count of them (None: until the caller stops)."""
        self._camera.start()
        try:
            n = 0
            while count is None or n < count:
                image, metadata = self._camera.capture(timeout)
                yield Frame(_array(image), metadata)
                n += 1
        finally:
            self._camera.stop()

    def close(self):
        self._camera.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _triplets(a):
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.shape[-1:] != (3,):
        raise ValueError('expected an array of colour triplets (..., 3), got shape %s' % (a.shape,))
    return a


def srgb_to_lab(rgb, encoded=True):
    """CIELAB (D65) of sRGB values in 0..1, (..., 3); encoded=False for linear sRGB."""
    rgb = _triplets(rgb)
    lab = np.empty_like(rgb)
    _cisp.srgb_to_lab(rgb, lab, encoded)
    return lab


def delta_e2000(lab1, lab2):
    """CIEDE2000 colour difference of each pair of CIELAB triplets: (..., 3), (..., 3) -> (...)."""
    a, b = _triplets(lab1), _triplets(lab2)
    if a.shape != b.shape:
        raise ValueError('lab1 %s and lab2 %s differ in shape' % (a.shape, b.shape))
    out = np.empty(a.shape[:-1], dtype=np.float64)
    _cisp.delta_e2000(a, b, out)
    return out


def sfr(image, roi, channel=-1, frequencies=()):
    """The slanted-edge response of an edge in roi = (x, y, w, h) of a linear image.

    image: float32 (h, w) or (h, w, 3) array (others are converted).
    channel: 0..2 for one channel of an RGB image, -1 for luminance.
    Returns a dict: mtf (at 0, 0.01, ... 1 cycles/pixel), mtf50, mtf_nyq2,
    mtf_nyq, angle_deg, esf, ... and mtf_at: the MTF at each of frequencies.
    """
    image = np.asarray(image, dtype=np.float32)
    if image.ndim < 2 or image.strides[-1] != image.itemsize or (image.ndim == 3 and image.strides[1] != 12):
        image = np.ascontiguousarray(image)
    x, y, w, h = roi
    result = _cisp.sfr(image, int(x), int(y), int(w), int(h), int(channel), [float(f) for f in frequencies])
    result['mtf'] = np.array(result['mtf'])
    result['esf'] = np.array(result['esf'])
    result['mtf_at'] = np.array(result['mtf_at'])
    return result

# SPDX-License-Identifier: MIT
"""The Python binding against the library and the cisp command (docs/python.md).

Needs cisp installed (or CISP_SENSOR_PATH and CISP_TUNING_PATH set, as `meson
devenv` does), and for some tests the raw files of ../shared/data and the
cisp command; tests without them are skipped, saying why.
"""
import errno
import os
import shutil
import subprocess

import numpy as np
import pytest

import cisp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get('CISP_SHARED_DATA', os.path.join(ROOT, '..', 'shared', 'data'))
ROSE = os.path.join(DATA, 'raw', 'nikon_rose_768x512_rggb14.raw')
ROSE_OPTIONS = ['--size', '768x512', '--format', 'SRGGB14', '--black', '600', '--white', '15520']


def need(path):
    if not os.path.exists(path):
        pytest.skip('%s is absent (the shared raw files)' % path)
    return path


def rose_mosaic():
    return np.fromfile(need(ROSE), dtype='<u2').reshape(512, 768)


def read_ppm(path):
    """A binary PPM as an (h, w, 3) array (16-bit big-endian samples when maxval > 255)."""
    with open(path, 'rb') as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    assert fields[0] == b'P6'
    w, h, maxval = (int(x) for x in fields[1:])
    dtype = '>u2' if maxval > 255 else 'u1'
    return np.frombuffer(data[pos + 1:], dtype=dtype).reshape(h, w, 3)


def test_develop_matches_the_cisp_command(tmp_path):
    """The same options give the same pixels as `cisp develop`, bit for bit."""
    command = shutil.which('cisp')
    if not command:
        pytest.skip('the cisp command is not on PATH')
    out = tmp_path / 'rose.ppm'
    subprocess.run([command, 'develop', need(ROSE), *ROSE_OPTIONS, '--depth', '16', '--demosaic', 'quality',
                    '--ev', '0.5', '-o', str(out)], check=True)
    mine = cisp.develop(ROSE, size=(768, 512), format='SRGGB14', black=600, white=15520, depth=16,
                        demosaic='quality', ev=0.5)
    assert mine.dtype == np.uint16 and mine.shape == (512, 768, 3)
    assert np.array_equal(mine, read_ppm(out))


def test_develop_a_numpy_mosaic_as_the_file():
    mosaic = rose_mosaic()
    from_array = cisp.develop(mosaic, cfa='RGGB', black=600, white=15520, linear=True)
    from_file = cisp.develop(ROSE, size=(768, 512), format='SRGGB14', black=600, white=15520, linear=True)
    assert from_array.dtype == np.uint16
    assert np.array_equal(from_array, from_file)
    # Another CFA order reads the same samples as other colours.
    assert not np.array_equal(cisp.develop(mosaic, cfa='BGGR', black=600, white=15520, linear=True), from_file)


def test_develop_gives_views_not_copies():
    """A padded output (100 RGB pixels: 300 bytes a row, 320 with padding) is the library's memory."""
    rgb = cisp.develop(rose_mosaic(), black=600, white=15520, output_size=(100, 80), stretch=True)
    assert rgb.shape == (80, 100, 3) and rgb.strides == (320, 3, 1)
    assert not rgb.flags['OWNDATA'] and not rgb.flags['C_CONTIGUOUS']
    assert rgb.flags['WRITEABLE']


def test_develop_options_change_the_output():
    mosaic = rose_mosaic()
    # Highlights off: with clip, a larger red gain lowers the clip level and
    # pulls more pixels to white, which moves blue too.
    # Exposure by hand: the automatic one would answer a larger red gain with less exposure.
    base = cisp.develop(mosaic, black=600, white=15520, awb='none', highlights='none', auto_exposure=False)
    brighter = cisp.develop(mosaic, black=600, white=15520, awb='none', highlights='none', ev=1.0)
    assert brighter.astype(int).sum() > base.astype(int).sum()
    red = cisp.develop(mosaic, black=600, white=15520, awb='none', highlights='none', auto_exposure=False,
                       params={'wb': {'enable': True, 'gain': [2.0, 1.0, 1.0, 1.0]}})
    assert red[..., 0].mean() > base[..., 0].mean() + 10
    assert abs(red[..., 2].astype(int).mean() - base[..., 2].astype(int).mean()) < 1
    clipped = cisp.develop(mosaic, black=600, white=15520, awb='none', auto_exposure=False)
    assert not np.array_equal(clipped, base)
    with pytest.raises(ValueError):
        cisp.develop(mosaic, black=600, white=15520, highlights='purple')
    # The controls of issue 24: white balance forms, tone, crop, fit and stretch.
    box = cisp.develop(mosaic, black=600, white=15520, wb='box:0,0,64,64', tone='filmic')
    assert box.shape == (512, 768, 3)
    assert not np.array_equal(box, cisp.develop(mosaic, black=600, white=15520, wb='5000K,10'))
    assert np.array_equal(cisp.develop(mosaic, black=600, white=15520, wb=(2, 1, 1.5)),
                          cisp.develop(mosaic, black=600, white=15520, wb='4,2,3'))
    assert cisp.develop(mosaic, black=600, white=15520, crop=(10, 10, 100, 50)).shape == (50, 100, 3)
    assert cisp.develop(mosaic, black=600, white=15520, output_size=(100, 100)).shape == (67, 100, 3)
    assert cisp.develop(mosaic, black=600, white=15520, output_size=(100, 100), stretch=True).shape == (100, 100, 3)
    for bad in ('purple', '5000', 'box:1,2', '1,2'):
        with pytest.raises(ValueError):
            cisp.develop(mosaic, black=600, white=15520, wb=bad)
    with pytest.raises(cisp.Error):
        cisp.develop(mosaic, black=600, white=15520, wb='1000K')
    with pytest.raises(ValueError):
        cisp.develop(mosaic, black=600, white=15520, tone='soft')


def test_params_round_trip_and_errors():
    blocks = {'wb': {'enable': True, 'gain': [2.0, 1.0, 1.0, 1.5]}, 'blc': {'enable': True, 'black': [256] * 4,
                                                                           'white': 65000}}
    buffer = cisp.params_encode(blocks)
    assert buffer[:4] == b'CISP'
    decoded = cisp.params_decode(buffer)
    assert decoded['wb'] == blocks['wb']
    assert decoded['blc']['black'] == [256] * 4 and decoded['blc']['white'] == 65000
    with pytest.raises(cisp.Error) as e:
        cisp.params_encode({'blc': {'enable': True, 'black': [0] * 4, 'white': 70000}})
    assert e.value.errno == errno.EINVAL and '70000' in str(e.value)
    with pytest.raises(cisp.Error) as e:
        cisp.params_decode(b'CISP\x01')
    assert 'shorter than its 16-byte header' in str(e.value)


def test_bad_inputs_raise_with_cisp_messages(tmp_path):
    with pytest.raises(cisp.Error) as e:
        cisp.develop(str(tmp_path / 'missing.dng'))
    assert e.value.errno == errno.ENOENT and 'missing.dng' in str(e.value)
    with pytest.raises(TypeError):
        cisp.develop(np.zeros(100, dtype=np.uint16))
    with pytest.raises(cisp.Error):
        cisp.develop(np.zeros((33, 32), dtype=np.uint16))
    with pytest.raises(cisp.Error) as e:
        cisp.develop(need(ROSE), size=(768, 500), format='SRGGB14')
    assert e.value.errno == errno.EMSGSIZE and '768000 bytes' in str(e.value)
    with pytest.raises(ValueError):
        cisp.develop(rose_mosaic(), demosaic='best')
    truncated = tmp_path / 'short.raw'
    truncated.write_bytes(b'\0' * 1000)
    with pytest.raises(cisp.Error):
        cisp.develop(str(truncated), size=(768, 512), format='SRGGB14')


def test_camera_frames_with_metadata():
    with cisp.Camera('virtual:cisp-test', size=(160, 120)) as cam:
        frames = list(cam.frames(6))
    assert [f.metadata['sequence'] for f in frames] == list(range(6))
    first = frames[0].image
    assert first.shape == (120, 160, 3) and first.dtype == np.uint8
    # Each frame keeps its own memory: later frames did not write into the first.
    assert not np.shares_memory(first, frames[-1].image)
    for f in frames:
        md = f.metadata
        assert md['exposure_us'] > 0 and md['analogue_gain'] >= 1 and md['colour_temperature'] > 1000
        assert len(md['ccm']) == 9 and md['ae_state'] in ('searching', 'converged', 'locked', 'flashing')
    # The 3A loop acts: the exposure moves from the start value.
    assert len({f.metadata['exposure_us'] for f in frames}) > 1


def test_camera_errors():
    with pytest.raises(cisp.Error) as e:
        cisp.Camera('virtual:no-such-sensor')
    assert e.value.errno == errno.ENOENT
    with pytest.raises(cisp.Error):
        cisp.Camera('virtual:cisp-test', format='NOPE')
    names = [c['name'] for c in cisp.cameras()]
    assert 'virtual:cisp-test' in names


def test_delta_e2000_reference_pairs():
    # Sharma, Wu and Dalal (2005), table 1, pairs 1, 7 and 17.
    lab1 = [[50.0, 2.6772, -79.7751], [50.0, 0.0, 0.0], [50.0, 2.5, 0.0]]
    lab2 = [[50.0, 0.0, -82.7485], [50.0, -1.0, 2.0], [73.0, 25.0, -18.0]]
    assert np.allclose(cisp.delta_e2000(lab1, lab2), [2.0425, 2.3669, 27.1492], atol=1e-4)
    assert cisp.delta_e2000(np.zeros((4, 5, 3)), np.zeros((4, 5, 3))).shape == (4, 5)
    with pytest.raises(ValueError):
        cisp.delta_e2000([[1, 2, 3]], [[1, 2, 3], [4, 5, 6]])


def test_srgb_to_lab():
    lab = cisp.srgb_to_lab([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.5, 0.5, 0.5]])
    assert np.allclose(lab[0], [100, 0, 0], atol=0.02)
    assert np.allclose(lab[1], [0, 0, 0], atol=0.02)
    assert abs(lab[2][0] - 53.39) < 0.05  # sRGB 0.5 is 21.4 % linear: L* 53.39
    assert np.allclose(cisp.srgb_to_lab([[0.214, 0.214, 0.214]], encoded=False)[0][0], 53.39, atol=0.05)


def slanted_edge(width=64, height=64, angle_deg=5.0, blur=1.0):
    """A dark-to-bright edge slanted from the vertical, blurred by a Gaussian of @blur pixels."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    d = (x - width / 2) * np.cos(np.radians(angle_deg)) - (y - height / 2) * np.sin(np.radians(angle_deg))
    from math import erf
    step = np.vectorize(lambda v: 0.5 * (1 + erf(v / (blur * np.sqrt(2)))))
    return (0.1 + 0.7 * step(d)).astype(np.float32)


def test_sfr_of_a_blurred_edge():
    sharp = cisp.sfr(slanted_edge(blur=0.7), (0, 0, 64, 64), frequencies=[0.0, 0.25])
    soft = cisp.sfr(slanted_edge(blur=2.0), (0, 0, 64, 64), frequencies=[0.0, 0.25])
    assert sharp['vertical'] and abs(sharp['angle_deg'] - 5.0) < 0.5
    assert sharp['mtf'][0] == pytest.approx(1.0, abs=1e-6)
    assert sharp['mtf_at'][1] == pytest.approx(sharp['mtf_nyq2'], abs=1e-9)
    # A Gaussian of sigma s has MTF50 = sqrt(2 ln 2) / (2 pi s): 0.268 and 0.094 cycles/pixel.
    assert sharp['mtf50'] > soft['mtf50']
    assert soft['mtf50'] == pytest.approx(0.0937, rel=0.1)
    with pytest.raises(cisp.Error):
        cisp.sfr(np.full((64, 64), 0.5, dtype=np.float32), (0, 0, 64, 64))

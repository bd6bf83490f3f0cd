# SPDX-License-Identifier: MIT
# cisp — `make demo` and `make test` do all the set-up on a fresh Debian 12
# machine (as root): install missing Debian packages, configure, build, run.

BUILD ?= build
CC ?= cc
# Extra arguments for `meson setup`, e.g. MESON_ARGS=-Db_sanitize=address,undefined
MESON_ARGS ?=
# WERROR=1 turns warnings into errors (CI does this).
WERROR ?= 0

DEB_PACKAGES = build-essential clang libclang-rt-dev meson ninja-build pkg-config libpng-dev libyaml-dev chromium \
	libraw-dev libtiff-dev libjpeg-dev liblcms2-dev libraw-bin \
	libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-plugins-base \
	gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-tools gstreamer1.0-plugins-base-apps locales \
	libcamera-ipa libopencv-imgproc-dev libopencv-objdetect-dev opencv-data \
	libvulkan-dev glslc vulkan-tools mesa-vulkan-drivers \
	abigail-tools pngcheck libimage-exiftool-perl libtiff-tools \
	python3-dev python3-numpy python3-yaml python3-pytest python3-venv python3-pip \
	libopencv-photo-dev

.PHONY: all deps build demo test test-vm tunings rpi-tunings clean

all: build

deps:
	@missing=""; \
	for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "== installing Debian packages:$$missing"; \
		if [ "$$(id -u)" != 0 ]; then echo "error: run as root, or install:$$missing" >&2; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

# The face detection module is C++: with a sanitizer, set CXX to CC's own (clang with clang++).
$(BUILD)/build.ninja:
	CC=$(CC) CXX=$(CXX) meson setup $(BUILD) -Dwerror=$(if $(filter 1,$(WERROR)),true,false) -Dgst=enabled -Dfaces=enabled -Dvulkan=enabled $(MESON_ARGS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

test: build
	tests/run-all.sh $(BUILD)

# The V4L2 backend against vimc and vivid, and the kernel module, in a qemu guest (tests/vm/run.sh).
test-vm: build
	tests/vm/run.sh $(BUILD)

demo: build
	tools/demo.sh $(BUILD)

# The virtual sensors' tunings in data/tuning, calibrated from their own captures by cisp calibrate
# (docs/calibrate.md); the date recorded is the last commit's, so reruns on one commit give the same files.
TUNING_LIGHTS = blackbody:2300,A,blackbody:3600,D50,D65,D75
tunings: build
	mkdir -p $(BUILD)/tuning-reports
	for m in cisp-test cisp-8m10 cisp-12m12; do \
		CISP_SENSOR_PATH=$(CURDIR)/data/sensors SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || echo 0) \
			$(BUILD)/tools/cisp calibrate \
			--camera $$m --illuminants $(TUNING_LIGHTS) -o data/tuning/$$m.yaml \
			--report $(BUILD)/tuning-reports/$$m.html --force || exit 1; \
	done

# cisp tunings of the Raspberry Pi sensors from Debian's libcamera-ipa (docs/calibrate.md), in
# $(BUILD)/rpi-tunings; each with the bit depth of the raw mode the Pi reads it in.
RPI_TUNING_DIR ?= /usr/share/libcamera/ipa/raspberrypi
RPI_SENSORS = imx219:10 imx290:12 imx296:10 imx378:12 imx477:12 imx519:10 ov5647:10 se327m12:12
rpi-tunings: build
	mkdir -p $(BUILD)/rpi-tunings
	for s in $(RPI_SENSORS); do \
		f=$(RPI_TUNING_DIR)/$${s%:*}.json; [ -f $$f ] || { echo "$$f: not installed (libcamera-ipa)"; continue; }; \
		$(BUILD)/tools/cisp tuning import $$f --bits $${s#*:} -o $(BUILD)/rpi-tunings/$${s%:*}.yaml --force \
			2>$(BUILD)/rpi-tunings/$${s%:*}.warnings || exit 1; \
	done

clean:
	rm -rf $(BUILD) out

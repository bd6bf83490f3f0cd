/* SPDX-License-Identifier: MIT */
/**
 * @file iq.h
 * @brief The image-quality lab: every metric, the colour calibration and the
 * report. docs/iq.md describes the methods and their validation.
 */
#ifndef CISP_IQ_H
#define CISP_IQ_H

#include <cisp/iq_calib.h>
#include <cisp/iq_color.h>
#include <cisp/iq_converge.h>
#include <cisp/iq_false_color.h>
#include <cisp/iq_image.h>
#include <cisp/iq_noise.h>
#include <cisp/iq_report.h>
#include <cisp/iq_sfr.h>
#include <cisp/iq_shading.h>

#endif /* CISP_IQ_H */

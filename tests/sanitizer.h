/* SPDX-License-Identifier: MIT */
/*
 * TEST_SANITIZED: 1 in a build under AddressSanitizer or ThreadSanitizer
 * (gcc says so with __SANITIZE_*__, clang with __has_feature), else 0.
 * There a process's peak memory holds the shadow memory, and the measurements
 * over whole image sets run on fewer of them, saying so: the sanitizers look
 * for memory and thread errors, which a few images meet as well as all of them.
 */
#ifndef CISP_TEST_SANITIZER_H
#define CISP_TEST_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TEST_SANITIZED 1
#endif
#endif
#ifndef TEST_SANITIZED
#define TEST_SANITIZED 0
#endif

#endif

/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * <pthread.h> for the cisp sources in the module: the few calls they make
 * (a mutex, a one-time initialisation) on the kernel's mutex.
 */
#ifndef CISP_KERNEL_PTHREAD_H
#define CISP_KERNEL_PTHREAD_H

#include <linux/mutex.h>

#include "cisp_libc.h"

typedef struct mutex pthread_mutex_t;
#define pthread_mutex_init(m, attr) ({ (void)(attr); mutex_init(m); 0; })
#define pthread_mutex_destroy(m) ({ mutex_destroy(m); 0; })
#define pthread_mutex_lock(m) ({ mutex_lock(m); 0; })
#define pthread_mutex_unlock(m) ({ mutex_unlock(m); 0; })

typedef int pthread_once_t;
#define PTHREAD_ONCE_INIT 0
int pthread_once(pthread_once_t *once, void (*fn)(void));

#endif

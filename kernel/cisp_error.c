// SPDX-License-Identifier: GPL-2.0 OR MIT
/* cisp_error() in the module: the message goes to the buffer its task registered (cisp_error.h). */
#include <linux/kernel.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "cisp_dev.h"
#include "cisp_error.h"

int cisp_error(int err, const char *fmt, ...) __printf(2, 3);
int cisp_error_prefix(int err, const char *fmt, ...) __printf(2, 3);

static LIST_HEAD(registered);
static DEFINE_SPINLOCK(registered_lock);

void cisp_msg_begin(struct cisp_msg *msg)
{
	msg->task = current;
	msg->text[0] = '\0';
	spin_lock(&registered_lock);
	list_add(&msg->node, &registered);
	spin_unlock(&registered_lock);
}

void cisp_msg_end(struct cisp_msg *msg)
{
	spin_lock(&registered_lock);
	list_del(&msg->node);
	spin_unlock(&registered_lock);
}

/* The current task's buffer; only that task removes it, so it stays valid after the lock. */
static struct cisp_msg *current_msg(void)
{
	struct cisp_msg *m, *found = NULL;

	spin_lock(&registered_lock);
	list_for_each_entry(m, &registered, node) {
		if (m->task == current) {
			found = m;
			break;
		}
	}
	spin_unlock(&registered_lock);
	return found;
}

int cisp_error(int err, const char *fmt, ...)
{
	struct cisp_msg *m = current_msg();
	va_list ap;

	if (m) {
		va_start(ap, fmt);
		vsnprintf(m->text, sizeof(m->text), fmt, ap);
		va_end(ap);
	}
	return err;
}

int cisp_error_prefix(int err, const char *fmt, ...)
{
	struct cisp_msg *m = current_msg();
	char prefix[96];
	size_t n, keep;
	va_list ap;

	if (!m)
		return err;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	n = strlen(prefix) + 2;
	keep = min(strlen(m->text), sizeof(m->text) - 1 - n);
	memmove(m->text + n, m->text, keep);
	m->text[n + keep] = '\0';
	memcpy(m->text, prefix, n - 2);
	memcpy(m->text + n - 2, ": ", 2);
	return err;
}

const char *cisp_last_error(void)
{
	struct cisp_msg *m = current_msg();

	return m ? m->text : "";
}

void cisp_clear_error(void)
{
	struct cisp_msg *m = current_msg();

	if (m)
		m->text[0] = '\0';
}

int cisp_message_to_user(u64 address, u32 size, const char *text)
{
	size_t n;

	if (!address || !size)
		return 0;
	n = min_t(size_t, strlen(text), size - 1);
	if (copy_to_user(u64_to_user_ptr(address), text, n) ||
	    put_user('\0', (char __user *)u64_to_user_ptr(address + n)))
		return -EFAULT;
	return 0;
}

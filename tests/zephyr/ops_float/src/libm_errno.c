/*
 * newlib's libm reports range errors through __errno(); Zephyr's minimal libc
 * has its own errno and no __errno. Give libm a place to write.
 */
int *__errno(void);

int *__errno(void)
{
	static int libm_errno;

	return &libm_errno;
}

/* Linked into needsgone, then deleted. */
int gone(void)
{
	return 0;
}

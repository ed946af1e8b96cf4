/* Found only through its caller's RUNPATH ($ORIGIN/sub). */
int target_answer(void)
{
	return 42;
}

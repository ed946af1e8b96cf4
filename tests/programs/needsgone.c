/* Linked against libgone.so, which the build removes: exit 127 at start. */
int gone(void);

int main(void)
{
	return gone();
}

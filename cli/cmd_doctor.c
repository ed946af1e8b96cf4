/* cudatrace doctor: the driver, GPUs and CUDA runtimes of this machine (being written). */
#include "cudatrace.h"

int ct_cmd_doctor(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ct_error("doctor is not written yet");
	return CT_EXIT_BAD_INPUT;
}

/* CUDA result codes and their messages (cuda_errors.def). */
#ifndef CT_CUDA_ERRORS_H
#define CT_CUDA_ERRORS_H

/* "CUDA_ERROR_NO_BINARY_FOR_GPU"; a placeholder for unknown codes. */
const char *ct_cu_error_name(int code);
/* "no kernel image is available for execution on the device". */
const char *ct_cu_error_text(int code);

#endif

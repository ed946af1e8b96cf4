/*
 * dlopen and dlmopen entered by a tail call: record the request, then jump
 * to the real function with the caller's return address still on the
 * stack (in the link register on aarch64), so glibc sees the program's
 * object as the caller and searches its RPATH/RUNPATH and $ORIGIN
 * (reference/interpose.md 3.1). ct_dlopen_enter(file, mode, return
 * address) and ct_dlmopen_enter(lmid, file, mode, return address) record
 * and return the real function's address.
 */
	.text

#if defined(__x86_64__)

	.globl	dlopen
	.type	dlopen, @function
dlopen:
	.cfi_startproc
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	subq	$8, %rsp		/* 16-byte alignment for the call */
	.cfi_adjust_cfa_offset 8
	movq	24(%rsp), %rdx		/* the caller's return address */
	call	ct_dlopen_enter
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	jmp	*%rax
	.cfi_endproc
	.size	dlopen, .-dlopen

	.globl	dlmopen
	.type	dlmopen, @function
dlmopen:
	.cfi_startproc
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	pushq	%rdx
	.cfi_adjust_cfa_offset 8
	movq	24(%rsp), %rcx		/* the caller's return address */
	call	ct_dlmopen_enter
	popq	%rdx
	.cfi_adjust_cfa_offset -8
	popq	%rsi
	.cfi_adjust_cfa_offset -8
	popq	%rdi
	.cfi_adjust_cfa_offset -8
	jmp	*%rax
	.cfi_endproc
	.size	dlmopen, .-dlmopen

#elif defined(__aarch64__)

	.globl	dlopen
	.type	dlopen, %function
dlopen:
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	mov	x2, x30			/* the caller's return address */
	bl	ct_dlopen_enter
	mov	x16, x0
	ldp	x0, x1, [sp, #16]
	ldp	x29, x30, [sp], #32
	.cfi_def_cfa_offset 0
	br	x16
	.cfi_endproc
	.size	dlopen, .-dlopen

	.globl	dlmopen
	.type	dlmopen, %function
dlmopen:
	.cfi_startproc
	stp	x29, x30, [sp, #-48]!
	.cfi_def_cfa_offset 48
	.cfi_offset 29, -48
	.cfi_offset 30, -40
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	str	x2, [sp, #32]
	mov	x3, x30			/* the caller's return address */
	bl	ct_dlmopen_enter
	mov	x16, x0
	ldp	x0, x1, [sp, #16]
	ldr	x2, [sp, #32]
	ldp	x29, x30, [sp], #48
	.cfi_def_cfa_offset 0
	br	x16
	.cfi_endproc
	.size	dlmopen, .-dlmopen

#else
#error "tailcall.S: no dlopen stub for this architecture"
#endif

	.section .note.GNU-stack,"",%progbits

/*
 * doctor's Python packages as text and JSON: one block per interpreter,
 * one per package in it, its verdict first. Views of doctor's model
 * (doctor_model.h: struct ct_py_envs), which they read and nothing else.
 */
#ifndef CT_PACKAGES_OUT_H
#define CT_PACKAGES_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "json.h"
#include "doctor_model.h"

/*
 * "; Python packages: 3 ok, 1 stopped (torch: lib-not-found)", for the
 * verdict line; nothing when there is no package.
 */
void ct_pyenvs_tally(FILE *out, const struct ct_py_envs *envs);

/*
 * The blocks: the interpreter, its site folders, then each package with
 * its verdict, its findings' messages and fixes (verbose: their evidence,
 * the objects judged, their device code and verdicts per target).
 */
void ct_pyenvs_print(FILE *out, const struct ct_py_env *envs, size_t n, bool verbose);

/*
 * [{"exe","real","from","version","prefix","venv","sites":[...],
 *   "packages":[{"name","version","site","metadata","verdict","cuda",
 *   "cuda_from","needs_torch","modules":[{"path","loaded","load_error",
 *   "device_code","archs":[...],"verdicts":[{"target","verdict","image",
 *   "fatbins","sass","ptx_jit","no_image"}]}],"findings":[...]}]}]
 */
void ct_pyenvs_json(struct ct_json *j, const struct ct_py_envs *envs);

#endif

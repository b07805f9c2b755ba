/* An FMI 2.0 co-simulation importer for tests/system/test_fmu.c: pack a model file with mbs-fmu
 * ($MBS_FMU, runtime $MBS_FMU_RUNTIME), unzip it with libzip, check modelDescription.xml
 * (fmi2_check.h), dlopen binaries/linux64/<identifier>.so and look variables up by name. */
#ifndef MBS_TESTS_FMU_HARNESS_H
#define MBS_TESTS_FMU_HARNESS_H

#include <stddef.h>

#include "fmi2.h"

/* The FMI functions the harness calls, from dlsym. */
typedef struct fmi {
    void *so;
    fmi2Component (*instantiate)(fmi2String, fmi2Type, fmi2String, fmi2String,
                                 const fmi2CallbackFunctions *, fmi2Boolean, fmi2Boolean);
    void (*free_instance)(fmi2Component);
    fmi2Status (*setup)(fmi2Component, fmi2Boolean, fmi2Real, fmi2Real, fmi2Boolean, fmi2Real);
    fmi2Status (*enter_init)(fmi2Component), (*exit_init)(fmi2Component);
    fmi2Status (*terminate)(fmi2Component), (*reset)(fmi2Component);
    fmi2Status (*set_real)(fmi2Component, const fmi2ValueReference *, size_t, const fmi2Real *);
    fmi2Status (*get_real)(fmi2Component, const fmi2ValueReference *, size_t, fmi2Real *);
    fmi2Status (*set_boolean)(fmi2Component, const fmi2ValueReference *, size_t, const fmi2Boolean *);
    fmi2Status (*get_boolean)(fmi2Component, const fmi2ValueReference *, size_t, fmi2Boolean *);
    fmi2Status (*set_integer)(fmi2Component, const fmi2ValueReference *, size_t, const fmi2Integer *);
    fmi2Status (*get_integer)(fmi2Component, const fmi2ValueReference *, size_t, fmi2Integer *);
    fmi2Status (*do_step)(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean);
    fmi2Status (*real_status)(fmi2Component, fmi2StatusKind, fmi2Real *);
    const char *(*version)(void);
} fmi;

/* One packed and unpacked FMU. */
typedef struct fmu_unit {
    char dir[64];          /* scratch folder it is unpacked into */
    char ident[64];        /* modelIdentifier */
    char guid[64];
    char resources[256];   /* file:// URI of resources/ */
    char *description;     /* modelDescription.xml */
    size_t description_len;
    int nvar;
    char (*names)[160];    /* [nvar] variable names by value reference */
    char (*causality)[16]; /* [nvar] */
    fmi f;
} fmu_unit;

/* Pack model_path as identifier ident, unzip, check the description (the test fails on any
   problem), load the binary. */
void fmu_unit_open(fmu_unit *u, const char *model_path, const char *ident);
/* Unload and remove the scratch folder. */
void fmu_unit_close(fmu_unit *u);
/* Value reference of the variable called name; fails the test when it is missing or its
   causality differs. */
fmi2ValueReference fmu_vr(const fmu_unit *u, const char *name, const char *causality);
/* Value reference of name, or -1. */
int fmu_find(const fmu_unit *u, const char *name);
/* An instance through fmi2ExitInitializationMode: start time 0; tolerance tol when > 0;
   use_cvode; step size step when > 0. */
fmi2Component fmu_start(const fmu_unit *u, const char *name, double tol, int use_cvode, double step);

/* The logger the harness hands to instances: counts messages, keeps the last one. */
extern int fmu_log_count;
extern char fmu_log_last[512];
extern const fmi2CallbackFunctions fmu_callbacks;

/* A scratch file with contents text in a fresh folder (the path in a static buffer per
   slot); the folder is removed by fmu_scratch_clean. */
const char *fmu_scratch(int slot, const char *name, const char *text);
void fmu_scratch_clean(void);
/* A file's bytes (NUL-terminated, caller frees). */
char *fmu_slurp(const char *path, size_t *len);

#endif

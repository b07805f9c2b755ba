/* mbs-fmu: a model file packed into an FMI 2.0 co-simulation FMU (a zip written with libzip):
 *   modelDescription.xml               (fmu_describe.c)
 *   binaries/linux64/<identifier>.so   (the runtime, fmu_runtime.c + fmu_access.c; FMI 3.0:
 *                                      binaries/x86_64-linux/, fmu3_*.c)
 *   resources/model.urdf | model.xml   (the model file itself; the runtime loads it) */
#ifndef MBS_FMU_PACK_H
#define MBS_FMU_PACK_H

#include <stdio.h>

#include "fmu_vars.h"

typedef struct fmu_pack {
    const char *model_path;  /* the model file */
    const char *runtime;     /* the runtime shared library to put into binaries/linux64 */
    const char *out;         /* the .fmu to write */
    char identifier[64];     /* C identifier: the .so's name and modelIdentifier */
    char model_name[128];
    char source_name[256];   /* file name of the model (a description) */
    char guid[64];
    int fmi_version;         /* 2 (FMI 2.0) or 3 (FMI 3.0) */
} fmu_pack;

/* modelDescription.xml of the variables; 0 or -1 (write error). FMI 2.0: fmu_describe.c,
   FMI 3.0: fmu3_describe.c. */
int fmu_write_description(FILE *f, const fmu_pack *p, const fmu_vars *vars);
int fmu_write_description3(FILE *f, const fmu_pack *p, const fmu_vars *vars);
/* Write s with the five XML special characters escaped. */
void fmu_put_escaped(FILE *f, const char *s);
/* Load and compile the model, write the zip; 0 or -1 with a message in why. */
int fmu_pack_write(fmu_pack *p, char *why, size_t len);

#endif

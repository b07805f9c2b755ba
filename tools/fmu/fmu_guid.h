/* The GUID of an mbs FMU: derived from the bytes of its model file, so the packer (which
   writes it into modelDescription.xml) and the runtime (which checks the model it loads from
   resources/) agree without storing anything else. */
#ifndef MBS_FMU_GUID_H
#define MBS_FMU_GUID_H

#include <stddef.h>

/* "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}" from two FNV-1a hashes of the file; 0 or -1
   (unreadable file). out needs 39 bytes. */
int fmu_guid_of_file(const char *path, char *out, size_t len);

#endif

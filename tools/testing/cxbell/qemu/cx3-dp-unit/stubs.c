/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stubs for QOM symbols libqemuutil.a pulls in */
void *object_class_dynamic_cast_assert(void) { return 0; }
void *object_class_property_add(void) { return 0; }
void *object_dynamic_cast_assert(void) { return 0; }
void *object_get_canonical_path_component(void) { return 0; }
void *type_register_static(void) { return 0; }

/* get_global_linear_id and get_local_linear_id (OpenCL C 2.0/3.0, §6.15.1:
 * unused dimensions have id 0, offset 0 and size 1), from the 1.x
 * work-item functions.  Included by work_item.cl (CPU) and cl30_nvptx.cl. */
OVL size_t get_global_linear_id(void)
{
   return ((get_global_id(2) - get_global_offset(2)) * get_global_size(1) +
           (get_global_id(1) - get_global_offset(1))) * get_global_size(0) +
          (get_global_id(0) - get_global_offset(0));
}

OVL size_t get_local_linear_id(void)
{
   return (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) + get_local_id(0);
}

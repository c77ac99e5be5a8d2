import torch


class GraphModule(torch.nn.Module):
    def forward(self, L_pixel_values_: torch.Tensor, L_self_modules_embedder_modules_embedder_modules_convolution_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_mean_: torch.Tensor, L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_var_: torch.Tensor, L_self_modules_embedder_modules_embedder_modules_normalization_parameters_weight_: torch.nn.parameter.Parameter, L_self_modules_embedder_modules_embedder_modules_normalization_parameters_bias_: torch.nn.parameter.Parameter):
        l_pixel_values_ = L_pixel_values_
        l_self_modules_embedder_modules_embedder_modules_convolution_parameters_weight_ = L_self_modules_embedder_modules_embedder_modules_convolution_parameters_weight_
        l_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_mean_ = L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_mean_
        l_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_var_ = L_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_var_
        l_self_modules_embedder_modules_embedder_modules_normalization_parameters_weight_ = L_self_modules_embedder_modules_embedder_modules_normalization_parameters_weight_
        l_self_modules_embedder_modules_embedder_modules_normalization_parameters_bias_ = L_self_modules_embedder_modules_embedder_modules_normalization_parameters_bias_
        conv2d = torch.conv2d(l_pixel_values_, l_self_modules_embedder_modules_embedder_modules_convolution_parameters_weight_, None, (2, 2), (3, 3), (1, 1), 1);  l_pixel_values_ = l_self_modules_embedder_modules_embedder_modules_convolution_parameters_weight_ = None
        batch_norm = torch.nn.functional.batch_norm(conv2d, l_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_mean_, l_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_var_, l_self_modules_embedder_modules_embedder_modules_normalization_parameters_weight_, l_self_modules_embedder_modules_embedder_modules_normalization_parameters_bias_, False, 0.1, 1e-05);  conv2d = l_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_mean_ = l_self_modules_embedder_modules_embedder_modules_normalization_buffers_running_var_ = l_self_modules_embedder_modules_embedder_modules_normalization_parameters_weight_ = l_self_modules_embedder_modules_embedder_modules_normalization_parameters_bias_ = None
        relu = torch.nn.functional.relu(batch_norm, inplace = False);  batch_norm = None
        max_pool2d = torch.nn.functional.max_pool2d(relu, 3, 2, 1, 1, ceil_mode = False, return_indices = False);  relu = None
        return (max_pool2d,)
